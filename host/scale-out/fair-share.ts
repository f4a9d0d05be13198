// Fair share of the runs queue between agents. BullMQ gives a due job to whichever worker asks
// Redis first: every idle worker's blocking wait times out at the same moment (the next delayed
// job's time) and they race; the quickest process wins most races, and keeps winning (see
// docs/architecture/scale-out.md, G4). So each agent advertises the rate at which it takes jobs (a key with a
// TTL in Redis, renewed every heartbeat); every agent reads the others', and one taking more than
// its 1/N share (plus a tolerance), or above 1/N while another agent is under its share by
// more than the tolerance (the one taking the most the longest), holds back each fetch, long
// enough for an idle agent under its share to take the job first. The hold-back grows with the gap (deferMs at the tolerance,
// twice that at twice the tolerance, up to maxDeferMs): a slight excess costs the jobs the agent
// still takes little lateness, a large one gives slow competitors on a loaded machine time to
// answer. It is bounded: when nobody else takes the job, the agent over its share still does, at
// most maxDeferMs later, and a lone agent (the survivor of a crash, once the others' heartbeats
// expired) never holds back. Nor does an agent that just took a job already lateMs late: there is
// a backlog, and being on time comes first.
import type { Redis } from 'ioredis';
import { ScaleOutError, toError } from '../contract/errors.js';

export const DEFAULT_FAIR_WINDOW_MS = 20_000;
export const DEFAULT_FAIR_HEARTBEAT_MS = 1_000;
export const DEFAULT_FAIR_TOLERANCE = 0.1;
export const DEFAULT_FAIR_DEFER_MS = 30;
export const DEFAULT_FAIR_MAX_DEFER_MS = 120;
/** SCALE-OUT.md G3's p99 lateness. */
export const DEFAULT_FAIR_LATE_MS = 250;

export interface FairShareOptions {
  /** A connected client (the run worker's own). */
  client: Redis;
  /** This agent's name: unique in the cluster. */
  name: string;
  /** BullMQ key prefix (default "bull"); the keys live beside the runs queue's. */
  prefix?: string;
  /** The rate is taken over this much of the recent past, ms (default 20 s). */
  windowMs?: number;
  /** How often the rate is published and the others' read, ms (default 1 s). */
  heartbeatMs?: number;
  /** An agent whose heartbeat is older than this is gone, ms (default 3.5 heartbeats). */
  ttlMs?: number;
  /** Over its share means above (1 + tolerance) / N of all the agents' rates (default 0.1: the noise of a 20 s window at a few runs a second). */
  tolerance?: number;
  /** The hold-back of each fetch at an excess of `tolerance` over the share, ms (default 30); it grows in proportion. */
  deferMs?: number;
  /** The longest hold-back, ms (default 120): the most a job waits when nobody else takes it. */
  maxDeferMs?: number;
  /** A job taken this late (ms after its slot) means a backlog: no hold-back for a heartbeat (default 250). */
  lateMs?: number;
  /** Heartbeat trouble (Redis down): the view is kept, the next heartbeat tries again. */
  onError?: (error: Error) => void;
  now?: () => number;
}

/** What this agent knows of the cluster after its last heartbeat. */
export interface FairShareView {
  /** Live agents, this one included. */
  agents: number;
  /** Jobs per second this agent took over the window. */
  ownRate: number;
  /** Jobs per second all live agents took. */
  totalRate: number;
  /** ownRate / totalRate (0 when nothing was taken). */
  share: number;
  over: boolean;
  /** What each fetch waits now, ms. */
  holdBackMs: number;
}

const LONE: FairShareView = { agents: 1, ownRate: 0, totalRate: 0, share: 0, over: false, holdBackMs: 0 };

function positive(name: string, value: number | undefined, fallback: number, integer = true): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new ScaleOutError('INVALID_OPTIONS', `fair share option ${name} must be a positive ${integer ? 'integer' : 'number'} (got ${String(value)})`);
  }
  return value;
}

/** The agents' set and heartbeat keys of one prefix. */
export function fairShareKeys(prefix = 'bull'): { agents: string; agent: (name: string) => string } {
  return { agents: `${prefix}:runs:fair:agents`, agent: (name) => `${prefix}:runs:fair:agent:${name}` };
}

/** A published rate, or undefined for a value that is not one. */
function readRate(value: string | null): number | undefined {
  if (value === null) return undefined;
  const rate = Number(value);
  return Number.isFinite(rate) && rate >= 0 ? rate : undefined;
}

export class FairShare {
  readonly name: string;
  readonly windowMs: number;
  readonly heartbeatMs: number;
  readonly ttlMs: number;
  readonly tolerance: number;
  readonly deferMs: number;
  readonly maxDeferMs: number;
  readonly lateMs: number;
  private readonly client: Redis;
  private readonly keys: ReturnType<typeof fairShareKeys>;
  private readonly now: () => number;
  private readonly onError: (error: Error) => void;
  /** Take times within the window, oldest first. */
  private readonly takes: number[] = [];
  private readonly startedAt: number;
  private current: FairShareView = LONE;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<FairShareView> | undefined;
  private stopped = false;
  /** No hold-back before this time (a late job was taken). */
  private backlogUntil = -Infinity;

  constructor(options: FairShareOptions) {
    if (typeof options.name !== 'string' || options.name === '') throw new ScaleOutError('INVALID_OPTIONS', 'fair share: name must be a non-empty string');
    this.client = options.client;
    this.name = options.name;
    this.windowMs = positive('windowMs', options.windowMs, DEFAULT_FAIR_WINDOW_MS);
    this.heartbeatMs = positive('heartbeatMs', options.heartbeatMs, DEFAULT_FAIR_HEARTBEAT_MS);
    this.ttlMs = positive('ttlMs', options.ttlMs, Math.round(this.heartbeatMs * 3.5));
    if (this.ttlMs <= this.heartbeatMs) throw new ScaleOutError('INVALID_OPTIONS', `fair share: ttlMs (${this.ttlMs}) must exceed heartbeatMs (${this.heartbeatMs})`);
    this.tolerance = positive('tolerance', options.tolerance, DEFAULT_FAIR_TOLERANCE, false);
    this.deferMs = positive('deferMs', options.deferMs, DEFAULT_FAIR_DEFER_MS);
    this.maxDeferMs = positive('maxDeferMs', options.maxDeferMs, Math.max(this.deferMs, DEFAULT_FAIR_MAX_DEFER_MS));
    if (this.maxDeferMs < this.deferMs) throw new ScaleOutError('INVALID_OPTIONS', `fair share: maxDeferMs (${this.maxDeferMs}) must not be below deferMs (${this.deferMs})`);
    this.lateMs = positive('lateMs', options.lateMs, DEFAULT_FAIR_LATE_MS);
    this.keys = fairShareKeys(options.prefix);
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => undefined);
    this.startedAt = this.now();
  }

  /** Counts one job this agent took, latenessMs after its slot. */
  record(latenessMs = 0): void {
    const now = this.now();
    this.takes.push(now);
    if (latenessMs > this.lateMs) this.backlogUntil = now + this.heartbeatMs;
  }

  /** Jobs per second over the window; a young agent's over at least a quarter of it, so its first few jobs do not look like a flood. */
  ownRate(): number {
    const now = this.now();
    while (this.takes.length > 0 && this.takes[0]! <= now - this.windowMs) this.takes.shift();
    const spanMs = Math.min(this.windowMs, Math.max(now - this.startedAt, this.windowMs / 4));
    return (this.takes.length * 1000) / spanMs;
  }

  get view(): FairShareView {
    return this.current;
  }

  /** How long to hold back the next fetch, ms (0: fetch now). */
  holdBackMs(): number {
    return this.stopped || this.now() < this.backlogUntil ? 0 : this.current.holdBackMs;
  }

  /**
   * The hold-back for a share of N agents: none within (1 + tolerance)/N, then in proportion to
   * the excess. And one for a shortfall: N - 1 agents each just within the tolerance would leave
   * the last one (N - 1) tolerances short (20 % at N = 3) with nobody making room for it. So while
   * the lowest agent is short by more than the tolerance, the agent with the largest share (no
   * other's is above it) holds back in proportion to that shortfall, and every other agent above
   * 1/N holds back deferMs: were it not to, it would win the race the largest one steps out of
   * whenever it answers quicker than the short one (the test of 3 real workers failed in CI at
   * 36.5 / 25.3 / 38.2 % that way). deferMs is the least that lets an idle short agent answer
   * first, and the most a job that agent does not take waits for it.
   */
  private holdBackFor(share: number, ownRate: number, others: number[], totalRate: number): number {
    const agents = others.length + 1;
    const excess = share * agents - 1;
    if (agents === 1 || excess <= 0) return 0;
    const shortfall = 1 - (Math.min(...others) / totalRate) * agents;
    const largest = others.every((rate) => rate <= ownRate);
    const off = largest ? Math.max(excess, shortfall) : excess;
    if (off > this.tolerance) return Math.min(this.maxDeferMs, Math.round((this.deferMs * off) / this.tolerance));
    return shortfall > this.tolerance ? this.deferMs : 0;
  }

  /** First heartbeat now, then one every heartbeatMs. */
  async start(): Promise<FairShareView> {
    const view = await this.beat();
    this.timer = setInterval(() => void this.beat().catch(() => undefined), this.heartbeatMs);
    this.timer.unref();
    return view;
  }

  /** Publishes this agent's rate, reads the live agents' and works out whether this one is over its share. */
  beat(): Promise<FairShareView> {
    // One heartbeat at a time: a slow Redis must not pile them up.
    this.beating ??= this.publishAndRead().finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async publishAndRead(): Promise<FairShareView> {
    if (this.stopped) return this.current;
    const ownRate = this.ownRate();
    try {
      const published = await this.client
        .multi()
        .set(this.keys.agent(this.name), String(ownRate), 'PX', this.ttlMs)
        .sadd(this.keys.agents, this.name)
        .smembers(this.keys.agents)
        .exec();
      const members = (published?.[2]?.[1] as string[] | undefined) ?? [];
      const others = members.filter((member) => member !== this.name);
      const rates = others.length > 0 ? await this.client.mget(others.map((member) => this.keys.agent(member))) : [];
      // A member whose key expired is gone (killed, frozen, cut off): drop it from the set.
      const gone = others.filter((_, i) => readRate(rates[i] ?? null) === undefined);
      if (gone.length > 0) await this.client.srem(this.keys.agents, ...gone);
      const live = rates.map((value) => readRate(value)).filter((rate): rate is number => rate !== undefined);
      const totalRate = ownRate + live.reduce((sum, rate) => sum + rate, 0);
      const agents = live.length + 1;
      const share = totalRate > 0 ? ownRate / totalRate : 0;
      const holdBackMs = this.holdBackFor(share, ownRate, live, totalRate);
      this.current = { agents, ownRate, totalRate, share, over: holdBackMs > 0, holdBackMs };
    } catch (error) {
      this.onError(new Error(`fair share heartbeat of ${this.name} failed: ${toError(error).message}`));
    }
    return this.current;
  }

  /** Stops the heartbeat and withdraws this agent, so the others count one fewer at once. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    await this.beating?.catch(() => undefined);
    this.current = LONE;
    try {
      await this.client.multi().del(this.keys.agent(this.name)).srem(this.keys.agents, this.name).exec();
    } catch (error) {
      // Redis gone: the key expires on its own after ttlMs.
      this.onError(new Error(`fair share of ${this.name}: could not withdraw: ${toError(error).message}`));
    }
  }
}
