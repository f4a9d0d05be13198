// A throwaway Redis for the tests: Debian's redis-server on 127.0.0.1, on a free TCP port, with its
// data in a temp folder (AOF on, no RDB snapshots, noeviction as BullMQ wants), no systemd. It can be
// restarted on the same port and folder (the Redis-restart fault: what the AOF kept survives), and is
// stopped and its folder removed after. A missing redis-server is an error, not a skip: CI installs it
// (scripts/install-test-peers.sh).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface RedisServer {
  port: number;
  /** redis://<first bind address>:<port> (127.0.0.1 by default) */
  url: string;
  /** The data folder (appendonly files live under it). */
  dir: string;
  /** The server's pid (changes on restart). */
  readonly pid: number;
  /** What the server printed (all runs). */
  output(): string;
  /** Stops it (SIGTERM, or SIGKILL with hard) and starts it again on the same port and folder; resolves once it answers PING. */
  restart(options?: { hard?: boolean }): Promise<void>;
  /** Stops it and removes its folder. */
  stop(): Promise<void>;
}

/** A TCP port nothing listens on right now (on 127.0.0.1). */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** One PING over a raw socket: true when the server answers +PONG within timeoutMs. */
export function pingRedis(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data: Buffer) => {
      answer += data.toString();
      if (answer.includes('\r\n')) finish(answer.startsWith('+PONG'));
    });
    socket.on('error', () => finish(false));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRedisServer(options: { startTimeoutMs?: number; /** Addresses to listen on (default ['127.0.0.1']; 127.0.0.1 is added when missing, for the PING check). */ bind?: string[] } = {}): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER)) {
    throw new Error(`${REDIS_SERVER} is not installed: the scale-out tests need Debian's redis-server (scripts/install-test-peers.sh installs it)`);
  }
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const bind = options.bind?.length ? options.bind : ['127.0.0.1'];
  const bindAll = bind.includes('127.0.0.1') ? bind : [...bind, '127.0.0.1'];
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-redis-'));
  const port = await freeTcpPort();
  let log = '';
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const args = [
      '--port', String(port),
      '--bind', ...bindAll,
      '--appendonly', 'yes',
      '--maxmemory-policy', 'noeviction',
      '--save', '',
      '--dir', dir,
      '--daemonize', 'no',
      // Clients from the other listed addresses (a private test network) have no password to give.
      '--protected-mode', bindAll.length > 1 ? 'no' : 'yes',
    ];
    const proc = spawn(REDIS_SERVER, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const started = Date.now();
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(`redis-server exited (${proc.exitCode ?? proc.signalCode}) before answering PING on port ${port}:\n${log}`);
      }
      if (await pingRedis(port)) return;
      if (Date.now() - started > startTimeoutMs) {
        proc.kill('SIGKILL');
        throw new Error(`redis-server did not answer PING on port ${port} within ${startTimeoutMs} ms:\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const halt = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child;
    if (!proc) return;
    const done = exited(proc);
    proc.kill(signal);
    await done;
  };

  try {
    await launch();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    port,
    url: `redis://${bind[0]}:${port}`,
    dir,
    get pid() {
      return child?.pid ?? -1;
    },
    output: () => log,
    restart: async ({ hard = false } = {}) => {
      await halt(hard ? 'SIGKILL' : 'SIGTERM');
      await launch();
    },
    stop: async () => {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
