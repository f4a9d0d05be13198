// The store's core: schema migrations, the secret key, sealed credentials, the local agent.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../host/store/db/better-sqlite3.js';
import { describe, expect, it } from 'vitest';
import { openStore, SCHEMA_VERSION, StoreError } from '../../host/store/index.js';
import { schemaVersion } from '../../host/store/db/migrations.js';
import { ensureLocalAgent, getAgent } from '../../host/store/fleet/agents.js';
import { createDevice, findDeviceByAddress, getDevice } from '../../host/store/fleet/devices.js';
import { getDeviceCredentials, setDeviceCredentials } from '../../host/store/fleet/credentials.js';
import { formatApiTime, parseApiTime } from '../../host/store/db/time.js';
import { defaultDataDir } from '../../host/store/db/data-dir.js';
import { openTestStore } from '../helpers/store.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'driverbox-store-')), 'nested', 'driverbox.db');

describe('schema migrations', () => {
  it('creates the schema at the current version in a new file, and reopens it without re-running', async () => {
    const path = tempFile();
    const store = await openStore({ path });
    expect((await schemaVersion(store.kysely, store.dialect))).toBe(SCHEMA_VERSION);
    const agent = await ensureLocalAgent(store);
    await store.close();
    const again = await openStore({ path });
    expect((await ensureLocalAgent(again)).id).toBe(agent.id);
    expect((await again.statement<[], { journal_mode: string }>('PRAGMA journal_mode').get())!.journal_mode).toBe('wal');
    await again.close();
  });

  it('refuses a store written by a newer driverbox, naming both versions', async () => {
    const path = tempFile();
    await (await openStore({ path })).close();
    const raw = openDatabase(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    await expect(async () => await openStore({ path })).rejects.toThrow(StoreError);
    try {
      await openStore({ path });
    } catch (error) {
      expect((error as StoreError).code).toBe('STORE_TOO_NEW');
      expect((error as Error).message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    }
  });

  it('says which file it cannot open', async () => {
    const blocker = join(mkdtempSync(join(tmpdir(), 'driverbox-store-')), 'file');
    openDatabase(blocker).close();
    await expect(async () => await openStore({ path: join(blocker, 'sub', 'x.db') })).rejects.toThrow(/cannot open the store at .*sub/);
  });
});

describe('credentials at rest', () => {
  it('are sealed in the file, read back with the same secret, refused with another', async () => {
    const path = tempFile();
    const store = await openStore({ path, secretKey: 'correct horse' });
    const agent = await ensureLocalAgent(store);
    const device = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.7' });
    await setDeviceCredentials(store, device.id, 'DEVICE_MANAGEMENT', { username: 'admin', password: 'pa55-w0rd-unique' });
    expect(await getDeviceCredentials(store, device.id)).toEqual({ scope: 'DEVICE_MANAGEMENT', username: 'admin', password: 'pa55-w0rd-unique' });
    await store.statement('PRAGMA wal_checkpoint(TRUNCATE)').get();
    await store.close();
    expect(readFileSync(path).includes('pa55-w0rd-unique')).toBe(false);

    const reopened = await openStore({ path, secretKey: 'correct horse' });
    expect((await getDeviceCredentials(reopened, device.id))?.password).toBe('pa55-w0rd-unique');
    await reopened.close();
    await expect(async () => await openStore({ path, secretKey: 'wrong' })).rejects.toThrow(/does not match/);
    const locked = await openStore({ path });
    await expect(async () => await getDeviceCredentials(locked, device.id)).rejects.toThrow(/needs a secret key/);
    await locked.close();
  });

  it('prefers the custom-driver scope over device management', async () => {
    const store = await openTestStore({ secretKey: 's' });
    const agent = await ensureLocalAgent(store);
    const device = await createDevice(store, agent.id, { displayName: 'ups', ip: '10.0.0.8' });
    await setDeviceCredentials(store, device.id, 'DEVICE_MANAGEMENT', { username: 'a', password: 'b' });
    await setDeviceCredentials(store, device.id, 'CUSTOM_DRIVER_MANAGEMENT', { username: 'c', password: 'd' });
    expect(await getDeviceCredentials(store, device.id)).toMatchObject({ username: 'c', password: 'd' });
    await store.close();
  });
});

describe('agents and devices', () => {
  it('keeps one local agent, and finds devices by host name or IP', async () => {
    const store = await openTestStore({ clock: () => Date.UTC(2026, 0, 1) });
    const agent = await ensureLocalAgent(store);
    expect((await ensureLocalAgent(store)).id).toBe(agent.id);
    expect(await getAgent(store, agent.id)).toMatchObject({ displayName: 'driverbox', status: 'ONLINE', apiEnabled: true, creationTime: Date.UTC(2026, 0, 1) });
    const byIp = await createDevice(store, agent.id, { displayName: 'a', ip: '10.0.0.1' });
    const byName = await createDevice(store, agent.id, { displayName: 'b', ip: '10.0.0.1', hostName: 'b.lan' });
    expect((await findDeviceByAddress(store, agent.id, { ip: '10.0.0.1' }))?.id).toBe(byIp.id);
    expect((await findDeviceByAddress(store, agent.id, { hostName: 'b.lan', ip: '10.0.0.9' }))?.id).toBe(byName.id);
    expect(await findDeviceByAddress(store, agent.id, { ip: '10.0.0.2' })).toBeUndefined();
    expect(await getDevice(store, agent.id, byIp.id)).toMatchObject({ mainId: byIp.id, ipAddresses: ['10.0.0.1'], protocol: 'IP' });
    await store.close();
  });
});

describe('time and paths', () => {
  it('writes API date-times in UTC without a zone; reads that form and ISO 8601 with a zone or fractions, refusing anything else', () => {
    const t = Date.UTC(2026, 1, 3, 4, 5, 6);
    expect(formatApiTime(t)).toBe('2026-02-03T04:05:06');
    expect(parseApiTime('2026-02-03T04:05:06')).toBe(t);
    // What real clients send (issue 21): a Z, an offset, fractional seconds.
    expect(parseApiTime('2026-02-03T04:05:06Z')).toBe(t);
    expect(parseApiTime('2026-02-03T05:05:06+01:00')).toBe(t);
    expect(parseApiTime('2026-02-03T04:05:06.123Z')).toBe(t + 123);
    for (const bad of ['2026-02-30T00:00:00', '2026-13-01T00:00:00', '2026-02-03 04:05:06', '2026-02-03', 'yesterday']) {
      expect(parseApiTime(bad), bad).toBeNull();
    }
  });

  it('puts the store in the platform data folder unless told otherwise', () => {
    expect(defaultDataDir({ DRIVERBOX_DATA_DIR: '/x/y' })).toBe('/x/y');
    expect(defaultDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux')).toBe('/xdg/driverbox');
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toContain('driverbox');
  });
});
