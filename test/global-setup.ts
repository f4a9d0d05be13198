// Tests run the host from source, but it loads the runtime bundle from dist/, and the
// CLI tests start bin/driverbox.js, which loads dist/host: build both once here.
// With DRIVERBOX_TEST_STORE=postgres (npm run test:postgres), also a throwaway PostgreSQL
// server for the run, with a migrated template database each test store is copied from
// (test/helpers/store.ts); the forks find it through DRIVERBOX_TEST_PG_URL.
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { openStore } from '../host/store/store.js';
import { startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { TEMPLATE_DATABASE } from './helpers/store.js';

let server: PostgresServer | undefined;

export default async function setup(): Promise<() => void> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  if (process.env.DRIVERBOX_TEST_STORE !== 'postgres') return () => {};
  server = await startPostgres();
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await client.end();
  const template = await openStore({ path: server.urlOf(TEMPLATE_DATABASE) });
  await template.close();
  process.env.DRIVERBOX_TEST_PG_URL = server.url;
  return () => server?.destroy();
}
