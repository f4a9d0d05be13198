// A BullMQ Worker whose fetches a gate may hold back (fair-share.ts). A worker takes a job in two
// ways: moveToActive (after a wake-up, and in its fetch loop) and the job its completion returns
// (moveToFinished with fetchNext). While the gate holds back, the first waits holdBackMs before
// asking Redis and the second is not asked for: the worker's next fetch goes through the first.
import { setTimeout as delay } from 'node:timers/promises';
import { Worker, type Job, type Processor, type Span, type WorkerOptions } from 'bullmq';

export interface FetchGate {
  /** ms to wait before the next fetch (0: fetch now). */
  holdBackMs(): number;
}

export class FairWorker extends Worker {
  private readonly gate: FetchGate;

  constructor(gate: FetchGate, name: string, processor: Processor, options: WorkerOptions) {
    super(name, processor, options);
    this.gate = gate;
  }

  protected override async moveToActive(token: string, name?: string): Promise<Job> {
    const wait = this.gate.holdBackMs();
    if (wait > 0 && !this.closing) await delay(wait);
    return super.moveToActive(token, name);
  }

  protected override handleCompleted(result: unknown, job: Job, token: string, fetchNext: () => boolean = () => true, span?: Span): Promise<Job> {
    return super.handleCompleted(result, job, token, () => fetchNext() && this.gate.holdBackMs() === 0, span);
  }

  protected override handleFailed(error: Error, job: Job, token: string, fetchNext: () => boolean = () => true, span?: Span): Promise<Job> {
    return super.handleFailed(error, job, token, () => fetchNext() && this.gate.holdBackMs() === 0, span);
  }
}
