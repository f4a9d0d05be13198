// Agent processes: the real CLI (`node bin/driverbox.js agent …`), each spawned detached so it
// leads its own process group (the launcher, its --no-node-snapshot child and the sandbox
// process): kill -9, SIGSTOP and SIGCONT go to the whole group, as a machine dying would. In a
// namespace the command runs under `ip netns exec` (which execs it: the pid stays the leader's).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentNet } from './network.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(ROOT, 'bin', 'driverbox.js');
export const SECRET_KEY = 'fault-rig-secret';
export const API_KEY = 'fault-rig-key';

export interface AgentSpec {
  name: string;
  net: AgentNet;
  port: number;
  inventory: string;
  store: string;
  /** Redis URL; absent: the embedded mode. */
  queue?: string;
  runTimeoutS: number;
  runDeadlineS?: number;
  /** --max-concurrent (default: the agent's, 32). */
  maxConcurrent?: number;
  logFile: string;
}

/** The event counters of driverbox_queue_runs_total (taken, started, skipped_late, …). */
export type QueueCounters = Record<string, number>;

export class AgentProcess {
  readonly spec: AgentSpec;
  readonly spawnedAt: number;
  readonly child: ChildProcess;
  readonly pid: number;
  /** When /metrics first answered (null until then). */
  readyAt: number | null = null;
  /** The last counters read from /metrics (kept after the process dies). */
  lastCounters: QueueCounters = {};
  private exited = false;
  private readonly log: WriteStream;

  constructor(spec: AgentSpec) {
    this.spec = spec;
    const args = [
      // Node flags for the agents, e.g. RIG_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile them.
      ...(process.env.RIG_NODE_ARGS ? process.env.RIG_NODE_ARGS.split(' ') : []),
      BIN,
      'agent',
      '--store', spec.store,
      '--inventory', spec.inventory,
      '--host', spec.net.address,
      '--port', String(spec.port),
      '--run-timeout', String(spec.runTimeoutS),
      '--summary-interval', '0',
      '--probe-interval', '3600',
    ];
    if (spec.maxConcurrent !== undefined) args.push('--max-concurrent', String(spec.maxConcurrent));
    if (spec.queue) args.push('--queue', spec.queue, '--name', spec.name, '--run-deadline', String(spec.runDeadlineS ?? spec.runTimeoutS * 2));
    const [command, argv] = spec.net.namespace ? ['ip', ['netns', 'exec', spec.net.namespace, process.execPath, ...args]] : [process.execPath, args];
    this.log = createWriteStream(spec.logFile, { flags: 'a' });
    this.spawnedAt = Date.now();
    this.child = spawn(command, argv, {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', DRIVERBOX_SECRET_KEY: SECRET_KEY, DRIVERBOX_API_KEYS: API_KEY },
    });
    if (this.child.pid === undefined) throw new Error(`could not spawn agent ${spec.name}`);
    this.pid = this.child.pid;
    this.child.stdout!.pipe(this.log, { end: false });
    this.child.stderr!.pipe(this.log, { end: false });
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      if (!this.log.writableEnded) this.log.write(`[rig] ${spec.name} exited (${code ?? signal}) at ${new Date().toISOString()}\n`);
    });
  }

  get name(): string {
    return this.spec.name;
  }

  get url(): string {
    return `http://${this.spec.net.address}:${this.spec.port}`;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** A signal to the whole process group. */
  signal(signal: NodeJS.Signals): void {
    if (this.exited && signal !== 'SIGKILL') return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // the group is gone
    }
  }

  /** Resolves once /metrics answers (the agent is taking work), or rejects after timeoutMs. */
  async waitReady(timeoutMs = 120_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if (this.exited) throw new Error(`agent ${this.name} exited before it was ready (see ${this.spec.logFile})`);
      if (await this.scrape(1000)) {
        this.readyAt ??= Date.now();
        return;
      }
      await sleep(100);
    }
    throw new Error(`agent ${this.name} did not answer on ${this.url}/metrics within ${timeoutMs} ms (see ${this.spec.logFile})`);
  }

  /** Reads /metrics; true when it answered (lastCounters updated). */
  async scrape(timeoutMs = 2000): Promise<boolean> {
    if (this.exited) return false;
    try {
      const response = await fetch(`${this.url}/metrics`, { headers: { 'x-api-key': API_KEY }, signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) return false;
      const text = await response.text();
      const counters: QueueCounters = {};
      for (const match of text.matchAll(/^driverbox_queue_runs_total\{event="([a-z_]+)"\} (\d+(?:\.\d+)?)/gm)) counters[match[1]!] = Number(match[2]);
      this.lastCounters = counters;
      return true;
    } catch {
      return false;
    }
  }

  /** SIGTERM (a clean stop), SIGKILL after graceMs; resolves when the leader exited. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.exited) return this.killGroup();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.signal('SIGCONT');
    // The leader only: the launcher passes it on to its child once (a second SIGTERM would make
    // the agent exit without letting its runs finish).
    try {
      process.kill(this.pid, 'SIGTERM');
    } catch {
      // gone meanwhile
    }
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    this.killGroup();
  }

  /** kill -9 of the group; resolves when the leader exited. */
  async kill(): Promise<void> {
    const exited = this.exited ? Promise.resolve() : new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.signal('SIGKILL');
    await exited;
  }

  /** Whatever of the group is left (a sandbox process) goes too. */
  private killGroup(): void {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // nothing left
    }
    this.log.end();
  }
}

/** Sums a counter over agents' last readings. */
export function sumCounter(agents: Iterable<AgentProcess>, event: string): number {
  let total = 0;
  for (const agent of agents) total += agent.lastCounters[event] ?? 0;
  return total;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
