// Where bench/store puts its stores: SQLite files in a temp folder, or databases of a PostgreSQL
// server (a throwaway one the bench starts from Debian's binaries, or an existing one given by
// URL). Each phase gets a fresh, empty store of its own, and gives it back when done.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withPgClient } from './pg-client.js';
import { openStore, type Store } from '../../host/store/store.js';
import { startPostgres, type PostgresServer } from '../../test/helpers/postgres-server.js';

export type StoreKind = 'sqlite' | 'postgres';

export interface BenchStore {
  store: Store;
  /** What the store takes on disk now (file and WAL, or the database's size). */
  bytes(): Promise<number>;
  /** Closes the store and removes what it held. */
  dispose(): Promise<void>;
}

export interface StoreTarget {
  kind: StoreKind;
  /** One line for the output: where the stores live, and how durable their writes are. */
  describe: string;
  /** A fresh store named `name` (unique per target). */
  open(name: string, clock: () => number): Promise<BenchStore>;
  /** Removes what the target made (the temp folder, the throwaway server). */
  close(): Promise<void>;
}

export async function sqliteTarget(): Promise<StoreTarget> {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-bench-store-'));
  const size = (file: string) => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  return {
    kind: 'sqlite',
    describe: 'SQLite file in a temp folder (WAL, synchronous=NORMAL: no fsync per commit, as the store opens it)',
    async open(name, clock) {
      const file = path.join(dir, `${name}.db`);
      const store = await openStore({ path: file, clock });
      return {
        store,
        bytes: async () => size(file) + size(`${file}-wal`),
        async dispose() {
          await store.close();
          for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
        },
      };
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The URL with its database replaced. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * PostgreSQL: the bench's own throwaway server (url undefined), or an existing one, where the
 * bench makes a database per phase (driverbox_bench_<pid>_<phase>; the URL's role needs
 * CREATEDB) and drops it afterwards. The own server gets 512 MB of shared buffers; `durable`
 * (own server only) turns fsync, synchronous_commit and full_page_writes back on, which the test
 * server turns off.
 */
export async function postgresTarget(url: string | undefined, durable: boolean): Promise<StoreTarget> {
  let server: PostgresServer | undefined;
  if (url === undefined) {
    const own = (server = await startPostgres());
    url = server.url;
    // Interrupted (Ctrl-C), the bench still stops its server and removes the cluster.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        own.destroy();
        process.exit(130);
      });
    }
    // The test helper's 64 MB of shared buffers is for tests; a server is given a share of its
    // RAM. 512 MB holds the 10,000 × 50 store's variables and indexes, as the OS cache holds
    // SQLite's file. shared_buffers needs a restart; the durability settings come with it.
    await withPgClient(url, async (client) => {
      await client.query(`ALTER SYSTEM SET shared_buffers = '512MB'`);
      if (durable) for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes']) await client.query(`ALTER SYSTEM SET ${setting} = on`);
    });
    server.stop();
    server.start();
  }
  const base = url;
  const settings = await withPgClient(base, async (client) => {
    const read = async (name: string) => ((await client.query(`SHOW ${name}`)).rows[0] as Record<string, string>)[name];
    return { version: await read('server_version'), fsync: await read('fsync'), synchronousCommit: await read('synchronous_commit'), sharedBuffers: await read('shared_buffers') };
  });
  const durability =
    settings.fsync === 'on' && settings.synchronousCommit !== 'off'
      ? `durable (fsync ${settings.fsync}, synchronous_commit ${settings.synchronousCommit})`
      : `DURABILITY OFF (fsync ${settings.fsync}, synchronous_commit ${settings.synchronousCommit}: a commit does not wait for the disk)`;
  const where = server ? 'throwaway server (test/helpers/postgres-server.ts)' : 'existing server';
  const prefix = `driverbox_bench_${process.pid}_`;
  const made = new Set<string>();
  return {
    kind: 'postgres',
    describe: `PostgreSQL ${settings.version}, ${where}, shared_buffers ${settings.sharedBuffers}, ${durability}`,
    async open(name, clock) {
      const database = `${prefix}${name}`;
      await withPgClient(base, (client) => client.query(`CREATE DATABASE ${database}`));
      made.add(database);
      const store = await openStore({ path: withDatabase(base, database), clock });
      return {
        store,
        bytes: async () => ((await store.statement<[string], { n: number }>('SELECT pg_database_size(?) AS n').get(database))!.n),
        async dispose() {
          await store.close();
          await withPgClient(base, (client) => client.query(`DROP DATABASE IF EXISTS ${database}`));
          made.delete(database);
        },
      };
    },
    async close() {
      if (server) {
        server.destroy();
        return;
      }
      for (const database of made) await withPgClient(base, (client) => client.query(`DROP DATABASE IF EXISTS ${database}`)).catch(() => {});
    },
  };
}
