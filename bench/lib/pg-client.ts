// One pg connection for a bench's own look at a PostgreSQL server (setup, counts), closed after.
import pg from 'pg';

export async function withPgClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
