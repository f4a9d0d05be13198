// A throwaway PostgreSQL server for tests: Debian's binaries (initdb, pg_ctl, postgres) on a
// free loopback port, its cluster in a temp folder, no systemd. Run as root (CI), the cluster
// belongs to the `postgres` user the package made, since postgres refuses to run as root.
// Durability is off (fsync, synchronous_commit, full_page_writes): a test cluster is thrown away.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresServer {
  /** postgres://driverbox@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** A URL of another database of this server. */
  urlOf(database: string): string;
  /** Stops the server (fast shutdown) and keeps the cluster, for start() again: a restart. */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /** Stops the server and removes the cluster. */
  destroy(): void;
  /** The postmaster's pid while it runs (postmaster.pid), else undefined. */
  pid(): number | undefined;
}

export interface PostgresOptions {
  /** Addresses to listen on (default ['127.0.0.1']); the URLs name the first. */
  listenAddresses?: string[];
  /** Client networks (CIDR) allowed in without a password besides loopback, e.g. '10.231.0.0/24'. */
  trustNetworks?: string[];
  /** Server settings added to the defaults, e.g. { shared_preload_libraries: "'pg_stat_statements'" } (values as SQL text). */
  settings?: Record<string, string>;
}

export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(root, versions[0]!, 'bin');
  }
  throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql: install Debian\'s postgresql (scripts/install-test-peers.sh does)');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

function run(bin: string, args: string[], cwd: string): void {
  // As root, through runuser to the postgres user; otherwise as the current user.
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(cmd, argv, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`);
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const listen = options.listenAddresses?.length ? options.listenAddresses : ['127.0.0.1'];
  const host = listen[0]!;
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'driverbox-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  // C collation: text sorts by code point, as SQLite's does.
  run(join(bin, 'initdb'), ['-D', data, '-U', 'driverbox', '--auth=trust', '--locale=C', '--encoding=UTF8', '-N'], dir);
  writeFileSync(
    join(data, 'postgresql.auto.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '${listen.join(',')}'`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'max_connections = 200',
      'shared_buffers = 64MB',
      ...Object.entries(options.settings ?? {}).map(([name, value]) => `${name} = ${value}`),
      '',
    ].join('\n'),
  );
  if (options.trustNetworks?.length) {
    appendFileSync(join(data, 'pg_hba.conf'), options.trustNetworks.map((net) => `host all all ${net} trust\n`).join(''));
  }
  const log = join(dir, 'server.log');
  const start = () => run(join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '60', 'start'], dir);
  start();
  const url = `postgres://driverbox@${host}:${port}/postgres`;
  return {
    url,
    port,
    urlOf: (database) => `postgres://driverbox@${host}:${port}/${database}`,
    pid() {
      try {
        const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        return Number.isInteger(pid) && pid > 0 ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    stop: (mode = 'fast') => run(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop'], dir),
    start,
    destroy() {
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], dir);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Creates a database on the server (one per test file, so files sharing a server stay apart) and answers its URL. */
export async function createDatabase(server: PostgresServer, name: string): Promise<string> {
  await queryOnce(server.url, `CREATE DATABASE ${name}`);
  return server.urlOf(name);
}

/** One query on a connection of its own: a test's look at what the code under test stored. */
export async function queryOnce<R>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as R[];
  } finally {
    await client.end();
  }
}
