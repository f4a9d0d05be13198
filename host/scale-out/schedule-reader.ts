// A read-only view of the runs queue's schedule for the console's schedule page (GET
// …/agent/{id}/schedule in scale-out mode): each association's job scheduler (next slot, period,
// offset, iterations), which associations have a run in flight or waiting right now, and how many
// agents work the queue. It writes nothing to Redis (no queue meta, no scheduler, no job); its one
// connection is made at the first read and closed by close().
import { Queue } from 'bullmq';
import { redisOptions } from './redis-connection.js';
import { associationOfSchedulerId, readJobData, RUNS_QUEUE, schedulerIdOf } from './run-schedules.js';

/** One association's job scheduler as BullMQ keeps it. */
export interface QueuedSchedule {
  /** The next slot (epoch ms); null when BullMQ holds none (the scheduler is being replaced). */
  nextMs: number | null;
  everyMs: number;
  /** ms into each period: the spread of the associations of one period (run-schedules.ts offsetOf). */
  offsetMs: number;
  /** Jobs the scheduler has made since it was (last) upserted. */
  iterations: number;
}

/** Jobs of the runs queue now, by association: in flight (active) and due but not taken (waiting). */
export interface QueuedNow {
  running: Set<number>;
  waiting: Set<number>;
}

/** How many jobs of each state are read to tell the associations in flight or waiting (a healthy queue has far fewer). */
export const MAX_JOBS_READ = 1000;

export class ScheduleReader {
  readonly #url: string;
  readonly #prefix: string | undefined;
  readonly #name: string;
  #queue: Queue | null = null;

  constructor(options: { url: string; prefix?: string; name?: string }) {
    redisOptions(options.url, 'producer'); // a bad URL fails here, not at the first read
    this.#url = options.url;
    this.#prefix = options.prefix;
    this.#name = `${options.name ?? `driverbox-${process.pid}`}-schedule`;
  }

  #runs(): Queue {
    // skipMetasUpdate: a Queue otherwise writes the queue's meta hash when it connects.
    this.#queue ??= new Queue(RUNS_QUEUE, { connection: redisOptions(this.#url, 'producer', this.#name), skipMetasUpdate: true, ...(this.#prefix === undefined ? {} : { prefix: this.#prefix }) });
    return this.#queue;
  }

  /** The job schedulers of these associations (one call each, in parallel); an association without one is absent. */
  async schedulers(associationIds: readonly number[]): Promise<Map<number, QueuedSchedule>> {
    const queue = this.#runs();
    const found = await Promise.all(associationIds.map((id) => queue.getJobScheduler(schedulerIdOf(id))));
    const out = new Map<number, QueuedSchedule>();
    found.forEach((scheduler, i) => {
      if (!scheduler || scheduler.every === undefined) return;
      const data = readJobData(scheduler.template?.data);
      out.set(associationIds[i]!, {
        nextMs: scheduler.next ?? null,
        everyMs: scheduler.every,
        offsetMs: scheduler.offset ?? data?.offsetMs ?? 0,
        iterations: scheduler.iterationCount ?? 0,
      });
    });
    return out;
  }

  /** The associations with a run job active (in flight on some agent) or waiting to be taken. */
  async now(): Promise<QueuedNow> {
    const queue = this.#runs();
    const [active, waiting] = await Promise.all([queue.getJobs(['active'], 0, MAX_JOBS_READ - 1), queue.getJobs(['waiting', 'prioritized'], 0, MAX_JOBS_READ - 1)]);
    const associations = (jobs: typeof active) => new Set(jobs.flatMap((job) => (job ? [readJobData(job.data)?.associationId ?? associationOfSchedulerId(String(job.repeatJobKey ?? ''))] : [])).filter((id): id is number => id !== undefined));
    return { running: associations(active), waiting: associations(waiting) };
  }

  /** The agents (worker names) taking run jobs now: each agent's worker names its Redis connections. */
  async agents(): Promise<string[]> {
    const clients = await this.#runs().getWorkers();
    // A worker's connection is named <prefix>:<queue, base64>:w:<worker name>; both its connections count once.
    const names = clients.map((client) => /:w:(.+)$/.exec(client.rawname ?? '')?.[1]).filter((name): name is string => name !== undefined);
    return [...new Set(names)].sort();
  }

  async close(): Promise<void> {
    const queue = this.#queue;
    this.#queue = null;
    await queue?.close();
  }
}
