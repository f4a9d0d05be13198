// Redis's own count of the commands it ran (INFO commandstats), to say how many round trips a
// run costs in the steady window: the figure BullMQ's options would have to cut.
import { Redis } from 'ioredis';

export type CommandCalls = Map<string, number>;

export async function readCommandCalls(port: number): Promise<CommandCalls> {
  const redis = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const text = await redis.info('commandstats');
    const calls: CommandCalls = new Map();
    // cmdstat_evalsha:calls=123,usec=…
    for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1]!, Number(match[2]));
    return calls;
  } finally {
    redis.disconnect();
  }
}

/** "41.2 per run: evalsha 6.1, …" — the commands run between two readings, per run, most first (those of ≥ 0.01 per run). */
export function commandsPerRun(before: CommandCalls, after: CommandCalls, runs: number): string {
  const spent = [...after].map(([name, n]) => [name, n - (before.get(name) ?? 0)] as const).filter(([, n]) => n > 0);
  spent.sort((a, b) => b[1] - a[1]);
  const per = (n: number) => (n / Math.max(1, runs)).toFixed(2);
  const total = spent.reduce((sum, [, n]) => sum + n, 0);
  // Commands Lua scripts call are counted too: a client's round trips are evalsha and the rest.
  return `${per(total)} per run: ${spent.filter(([, n]) => n / Math.max(1, runs) >= 0.01).map(([name, n]) => `${name} ${per(n)}`).join(', ')}`;
}
