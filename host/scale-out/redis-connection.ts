// The Redis behind the scale-out mode: the `--queue redis://…` URL turned into ioredis options,
// and the checks a server must pass before BullMQ is trusted with it.
//
// Two roles, because BullMQ treats them differently:
// - worker: the connection a Worker blocks on; BullMQ requires maxRetriesPerRequest null (a
//   command waits for the reconnection instead of failing).
// - producer: queues that add jobs and upsert schedulers; commands fail after a few retries, so
//   an API request that asks for a reconcile does not hang while Redis is away.
import { Redis } from 'ioredis';
import { ScaleOutError, toError } from '../contract/errors.js';

export type RedisRole = 'worker' | 'producer';

export const DEFAULT_REDIS_PORT = 6379;
/** Producer commands fail after this many reconnection attempts (ioredis' maxRetriesPerRequest). */
export const PRODUCER_MAX_RETRIES = 2;

/** The ioredis options this module sets: accepted as they are by ioredis and by BullMQ's `connection`. */
export interface RedisConnectionOptions {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  connectionName: string;
  /** null for workers (BullMQ requires it for blocking connections). */
  maxRetriesPerRequest: number | null;
  tls?: { servername: string };
}

export interface RedisTarget {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
  /** rediss:// */
  tls: boolean;
}

/** The URL with its password replaced by ***, for messages and logs. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    // A password may also hide in the query (which parseRedisUrl refuses anyway).
    return parsed.toString().replace(/([?&][^=&#]*(?:pass|secret|token|auth)[^=&#]*=)[^&#]*/gi, '$1***');
  } catch {
    // Not a URL: say so without echoing what may be a secret.
    return `(${url.length} characters, not a URL)`;
  }
}

function refuse(url: string, why: string): ScaleOutError {
  return new ScaleOutError('INVALID_QUEUE_URL', `queue URL ${describeRedisUrl(url)}: ${why}`);
}

/** Reads redis://[user[:password]@]host[:port][/db] and rediss://…; throws INVALID_QUEUE_URL naming what is wrong. */
export function parseRedisUrl(url: string): RedisTarget {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ScaleOutError('INVALID_QUEUE_URL', 'queue URL: expected redis://host[:port][/db] or rediss://… (got an empty value)');
  }
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw refuse(url, 'not a URL; expected redis://host[:port][/db] or rediss://host[:port][/db]');
  }
  const protocol = parsed.protocol;
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    const hint = protocol === 'unix:' || protocol === 'redis+unix:' ? ' (Unix sockets are not supported: use a TCP address)' : '';
    throw refuse(url, `the scheme must be redis: or rediss: (got ${protocol})${hint}`);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw refuse(url, 'the host is missing (redis://host[:port])');
  let port = DEFAULT_REDIS_PORT;
  if (parsed.port !== '') {
    port = Number(parsed.port);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw refuse(url, `the port must be 1–65535 (got ${parsed.port})`);
  }
  let db = 0;
  const dbPath = parsed.pathname.replace(/^\//, '');
  if (dbPath !== '') {
    if (!/^\d{1,9}$/.test(dbPath)) throw refuse(url, `the path must be a database number like /0 (got /${dbPath})`);
    db = Number(dbPath);
  }
  if (parsed.search !== '') throw refuse(url, `query parameters are not supported (got ${parsed.search.replace(/password=[^&]*/i, 'password=***')})`);
  if (parsed.hash !== '') throw refuse(url, 'a #fragment is not supported');
  let username: string | undefined;
  let password: string | undefined;
  try {
    username = parsed.username === '' ? undefined : decodeURIComponent(parsed.username);
    password = parsed.password === '' ? undefined : decodeURIComponent(parsed.password);
  } catch {
    throw refuse(url, 'the user or password has a broken %-escape');
  }
  const target: RedisTarget = { host, port, db, tls: protocol === 'rediss:' };
  if (username !== undefined) target.username = username;
  if (password !== undefined) target.password = password;
  return target;
}

/** ioredis options for one role (BullMQ: `connection`). `name` becomes the client name shown by CLIENT LIST. */
export function redisOptions(url: string, role: RedisRole, name = 'driverbox'): RedisConnectionOptions {
  const target = parseRedisUrl(url);
  const options: RedisConnectionOptions = {
    host: target.host,
    port: target.port,
    db: target.db,
    connectionName: `${name}-${role}`,
    maxRetriesPerRequest: role === 'worker' ? null : PRODUCER_MAX_RETRIES,
  };
  if (target.username !== undefined) options.username = target.username;
  if (target.password !== undefined) options.password = target.password;
  if (target.tls) options.tls = { servername: target.host };
  return options;
}

/** A plain ioredis client (figures, health checks, the reconcile bookkeeping); lazy: it connects on its first command. */
export function createRedisClient(url: string, role: RedisRole = 'producer', name = 'driverbox'): Redis {
  return new Redis({ ...redisOptions(url, role, name), lazyConnect: true });
}

export interface RedisServerFacts {
  /** redis_version (or valkey_version). */
  version: string;
  maxmemoryPolicy: string;
}

/** Reads the fields of INFO that matter here. */
export function readServerFacts(info: string): RedisServerFacts {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return {
    version: fields.get('valkey_version') ?? fields.get('redis_version') ?? 'unknown',
    maxmemoryPolicy: fields.get('maxmemory_policy') ?? 'unknown',
  };
}

export interface ServerCheckOptions {
  /** refuse (default): throw REDIS_EVICTION_POLICY; warn: call warn and go on. */
  onEvictionPolicy?: 'refuse' | 'warn';
  warn?: (message: string) => void;
  /** For messages (the password is masked). */
  url?: string;
  timeoutMs?: number;
}

/** Promise.race with a timer that is always cleared. */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ScaleOutError('REDIS_UNREACHABLE', `${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks that the server answers and that it never evicts keys (maxmemory-policy noeviction): an
 * evicted key is a lost job, a lost lock or a lost schedule, which BullMQ cannot notice.
 */
export async function checkRedisServer(client: Redis, options: ServerCheckOptions = {}): Promise<RedisServerFacts> {
  const where = options.url ? `Redis at ${describeRedisUrl(options.url)}` : 'Redis';
  let info: string;
  try {
    info = await withTimeout(client.info('all'), options.timeoutMs ?? 5000, `${where}: INFO`);
  } catch (error) {
    if (error instanceof ScaleOutError) throw error;
    throw new ScaleOutError('REDIS_UNREACHABLE', `${where}: ${toError(error).message}`);
  }
  const facts = readServerFacts(info);
  if (facts.maxmemoryPolicy !== 'noeviction') {
    const message =
      `${where} has maxmemory-policy ${facts.maxmemoryPolicy}; BullMQ needs noeviction (an evicted key is a lost job, lock or schedule). ` +
      'Set "maxmemory-policy noeviction" in redis.conf (or CONFIG SET maxmemory-policy noeviction).';
    if ((options.onEvictionPolicy ?? 'refuse') === 'refuse') throw new ScaleOutError('REDIS_EVICTION_POLICY', message);
    (options.warn ?? ((text: string) => process.emitWarning(text)))(message);
  }
  return facts;
}

/** PING with a deadline: resolves with the round trip in ms, rejects (REDIS_UNREACHABLE) otherwise. For the status route. */
export async function pingRedis(client: Redis, timeoutMs = 2000): Promise<number> {
  const started = performance.now();
  try {
    const answer = await withTimeout(client.ping(), timeoutMs, 'Redis PING');
    if (answer !== 'PONG') throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
  } catch (error) {
    if (error instanceof ScaleOutError) throw error;
    throw new ScaleOutError('REDIS_UNREACHABLE', `Redis PING: ${toError(error).message}`);
  }
  return performance.now() - started;
}

/**
 * A client for a worker or reconciler of `name`, connected and its server checked (noeviction):
 * its errors go to `report`; it is disconnected again when the check fails.
 */
export async function connectCheckedClient(
  url: string,
  name: string,
  onEvictionPolicy: 'refuse' | 'warn',
  report: (error: Error) => void,
): Promise<Redis> {
  const client = createRedisClient(url, 'producer', name);
  // While the first check runs, connection errors are kept for its message (ioredis would
  // otherwise only say that its retries ran out) instead of being reported one by one.
  let connectError: Error | undefined;
  const keep = (error: Error) => {
    connectError = error;
  };
  client.on('error', keep);
  try {
    await checkRedisServer(client, { url, onEvictionPolicy, warn: (m) => report(new Error(m)) });
  } catch (error) {
    client.disconnect();
    if (error instanceof ScaleOutError && error.code === 'REDIS_UNREACHABLE' && connectError) {
      throw new ScaleOutError('REDIS_UNREACHABLE', `Redis at ${describeRedisUrl(url)}: ${connectError.message}`);
    }
    throw error;
  } finally {
    client.off('error', keep);
  }
  client.on('error', (error: Error) => report(error));
  return client;
}
