// Applications installed on devices (the software inventory the cloud shows for Enterprise
// Plan agents). driverbox discovers none by itself: an inventory is recorded with
// recordApplications (from a driver, an import, a test) and listed by the API.
import type { Store } from '../store.js';

export interface ApplicationRow {
  deviceId: number;
  applicationId: string;
  name: string | null;
  publisher: string | null;
  version: string | null;
  info: string | null;
  installLocation: string | null;
  installDate: number | null;
  lastModified: number | null;
  lastUpdate: number | null;
  firstTimeSeen: number;
}

export interface ApplicationInput {
  applicationId: string;
  name?: string | null;
  publisher?: string | null;
  version?: string | null;
  info?: string | null;
  installLocation?: string | null;
  installDate?: number | null;
  lastModified?: number | null;
}

export interface ApplicationFilter {
  /** Case-insensitive part of the name. */
  name?: string;
  deviceIds?: number[];
}

interface ApplicationDbRow {
  device_id: number;
  application_id: string;
  name: string | null;
  publisher: string | null;
  version: string | null;
  info: string | null;
  install_location: string | null;
  install_date: number | null;
  last_modified: number | null;
  last_update: number | null;
  first_time_seen: number;
}

function applicationFromDb(row: ApplicationDbRow): ApplicationRow {
  return {
    deviceId: row.device_id,
    applicationId: row.application_id,
    name: row.name,
    publisher: row.publisher,
    version: row.version,
    info: row.info,
    installLocation: row.install_location,
    installDate: row.install_date,
    lastModified: row.last_modified,
    lastUpdate: row.last_update,
    firstTimeSeen: row.first_time_seen,
  };
}

/**
 * Records a device's application inventory as seen now: applications already known keep
 * their first_time_seen, new ones start it now, and (with replace, the default) applications
 * missing from the list are removed, as uninstalled.
 */
export async function recordApplications(store: Store, deviceId: number, applications: ApplicationInput[], options: { replace?: boolean } = {}): Promise<void> {
  const now = store.now();
  await store.transaction(async () => {
    if (options.replace !== false) {
      const keep = applications.map((a) => a.applicationId);
      const kept = keep.length ? ` AND application_id NOT IN (${keep.map(() => '?').join(', ')})` : '';
      await store.statement(`DELETE FROM applications WHERE device_id = ?${kept}`).run(deviceId, ...keep);
    }
    const upsert = store.statement(
      `INSERT INTO applications (device_id, application_id, name, publisher, version, info, install_location, install_date,
         last_modified, last_update, first_time_seen)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (device_id, application_id) DO UPDATE SET name = excluded.name, publisher = excluded.publisher,
         version = excluded.version, info = excluded.info, install_location = excluded.install_location,
         install_date = excluded.install_date, last_modified = excluded.last_modified, last_update = excluded.last_update`,
    );
    for (const a of applications) {
      await upsert.run(
        deviceId,
        a.applicationId,
        a.name ?? null,
        a.publisher ?? null,
        a.version ?? null,
        a.info ?? null,
        a.installLocation ?? null,
        a.installDate ?? null,
        a.lastModified ?? null,
        now,
        now,
      );
    }
  });
}

function whereOf(agentId: number, deviceId: number | null, filter: ApplicationFilter): { sql: string; args: unknown[] } {
  const clauses = ['d.agent_id = ?'];
  const args: unknown[] = [agentId];
  if (deviceId !== null) {
    clauses.push('a.device_id = ?');
    args.push(deviceId);
  }
  if (filter.name !== undefined) {
    // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
    clauses.push("lower(a.name) LIKE lower(?) ESCAPE '\\'");
    args.push(`%${filter.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (filter.deviceIds !== undefined) {
    clauses.push(filter.deviceIds.length ? `a.device_id IN (${filter.deviceIds.map(() => '?').join(', ')})` : '0 = 1');
    args.push(...filter.deviceIds);
  }
  return { sql: `FROM applications a JOIN devices d ON d.id = a.device_id WHERE ${clauses.join(' AND ')}`, args };
}

/** Applications of an agent's devices (or of one device), ordered by device then application id. */
export async function listApplications(
  store: Store,
  agentId: number,
  deviceId: number | null,
  filter: ApplicationFilter,
  page: { limit: number; offset: number },
): Promise<ApplicationRow[]> {
  const { sql, args } = whereOf(agentId, deviceId, filter);
  return (await store
    .statement<unknown[], ApplicationDbRow>(`SELECT a.* ${sql} ORDER BY a.device_id, a.application_id LIMIT ? OFFSET ?`)
    .all(...args, page.limit, page.offset))
    .map(applicationFromDb);
}

export async function countApplications(store: Store, agentId: number, deviceId: number | null, filter: ApplicationFilter): Promise<number> {
  const { sql, args } = whereOf(agentId, deviceId, filter);
  return (await store.statement<unknown[], { n: number }>(`SELECT COUNT(*) AS n ${sql}`).get(...args))!.n;
}
