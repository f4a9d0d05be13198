// The figures of one agent's run worker, as a plain object the agent's /metrics renders: what Redis
// says about the runs queue (waiting, active, delayed: cluster-wide), and what this agent counted
// itself (started, completed, failed, skipped-late, refused duplicate writes, stalled re-queues, start
// lateness). Summing an agent counter over the agents gives the cluster's.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { SampleWindow, type SampleSummary } from '../sample-window.js';
import { pingRedis } from './redis-connection.js';

export const DEFAULT_LATENESS_WINDOW = 4096;

export interface RunCounters {
  /** Jobs this worker took from the queue (every one ends as started or skipped-late). */
  taken: number;
  /** runSlot called. */
  started: number;
  /** runSlot resolved (any SlotOutcome). */
  completed: number;
  /** runSlot threw or rejected (the job is failed in BullMQ). */
  failed: number;
  /** Runs whose signal was aborted (their deadline passed, their lock was lost, or stop's grace ran out). */
  aborted: number;
  /** Start rule: the job came after slot + period − D (or waited for its device until then); not run, job completed. */
  skippedLate: number;
  /** runSlot reported 'refused-duplicate': the store already had a result for the slot. */
  refusedDuplicate: number;
  /** runSlot reported 'gone': the association no longer exists or is not monitored. */
  gone: number;
  /** Stalled jobs this worker's stalled check moved back to wait (a dead or frozen worker's runs). */
  stalledRequeues: number;
  /** Locks of running jobs this worker failed to renew (another worker may take the job). */
  lockRenewalFailures: number;
}

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  /** Failed run jobs BullMQ still keeps (removeOnFail bounds them). */
  failed: number;
  /** Job schedulers on the runs queue (one per scheduled association). */
  schedulers: number;
}

export interface QueueFiguresSnapshot extends RunCounters {
  /** Cluster-wide, from Redis; null when Redis did not answer. */
  queue: QueueCounts | null;
  /** Runs in flight in this worker now. */
  running: number;
  /** Runs waiting in this worker for their device bound. */
  waitingForDevice: number;
  /** Start lateness (start − slot, ms) over the recent window. */
  lateness: SampleSummary;
}

export function zeroCounters(): RunCounters {
  return {
    taken: 0,
    started: 0,
    completed: 0,
    failed: 0,
    aborted: 0,
    skippedLate: 0,
    refusedDuplicate: 0,
    gone: 0,
    stalledRequeues: 0,
    lockRenewalFailures: 0,
  };
}

/** This agent's counters and lateness samples. */
export class QueueFigures {
  readonly counters: RunCounters = zeroCounters();
  private readonly lateness: SampleWindow;

  constructor(latenessWindow = DEFAULT_LATENESS_WINDOW) {
    this.lateness = new SampleWindow(latenessWindow);
  }

  count(counter: keyof RunCounters, by = 1): void {
    this.counters[counter] += by;
  }

  addLateness(ms: number): void {
    this.lateness.add(ms);
  }

  latenessSummary(): SampleSummary {
    return this.lateness.summary();
  }
}

/** waiting, active, delayed, failed and the scheduler count of a queue, in one round of calls. */
export async function readQueueCounts(queue: Queue): Promise<QueueCounts> {
  const [counts, schedulers] = await Promise.all([
    queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed'),
    queue.getJobSchedulersCount(),
  ]);
  return {
    // Prioritized jobs wait too (run jobs have no priority, so this is 0 unless someone adds some).
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
    active: counts.active ?? 0,
    delayed: counts.delayed ?? 0,
    failed: counts.failed ?? 0,
    schedulers,
  };
}

/** The health check for the status route: rejects when Redis does not answer PING in time. */
export async function pingQueue(client: Redis, timeoutMs = 2000): Promise<void> {
  await pingRedis(client, timeoutMs);
}
