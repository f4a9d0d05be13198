// P30–P34: what the store keeps of a run and how its files are made. Every text of a result
// (message, logs, warnings, HTTP exchanges with headers and bodies, variables, table cells) is
// written with the run's credentials masked in every form a driver or the wire gives them; the
// database, its -wal / -shm files and the data folder are private, and older files are tightened.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../host/store/db/better-sqlite3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../../host/config/server-config.js';
import type { RunResult } from '../../host/index.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { setDeviceCredentials } from '../../host/store/fleet/credentials.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { reportRun } from '../../host/store/runs/report-local-run.js';
import { writeRunResult } from '../../host/store/runs/report-run.js';
import { MASK, SecretMask } from '../../host/store/runs/run-secrets.js';
import { listDeviceRuns } from '../../host/store/runs/runs.js';
import { openStore } from '../../host/store/store.js';
import { listDeviceTables } from '../../host/store/results/tables.js';
import { openTestStore } from '../helpers/store.js';

const PASSWORD = 'p"w\\x/+y é&z=';
const USER = 'admin-user';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-process-store-'));
  dirs.push(dir);
  return dir;
}

/** Every form the password can take in text a driver produces. */
function leaks(secret: string): Record<string, string> {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return {
    plain: secret,
    json: JSON.stringify(secret).slice(1, -1),
    jsonTwice: JSON.stringify(JSON.stringify(secret)).slice(1, -1),
    uri: encodeURIComponent(secret),
    form: new URLSearchParams({ s: secret }).toString().slice(2),
    urlPath: new URL(`http://h/${secret}`).pathname.slice(1),
    base64: b64(secret),
    base64url: Buffer.from(secret).toString('base64url'),
    basic: b64(`${USER}:${secret}`),
    // Inside a longer base64 text, at each of the three alignments.
    inside0: b64(`${secret}tail`),
    inside1: b64(`a${secret}tail`),
    inside2: b64(`ab${secret}tail`),
  };
}

function result(text: string): RunResult {
  return {
    status: 'success',
    errorType: null,
    message: `message ${text}`,
    variables: [{ uid: 'v', label: 'V', value: `value ${text}`, unit: null, valueType: 'STRING' } as RunResult['variables'][number]],
    tables: [{ label: 'T', columnHeaders: [{ label: 'c', valueType: 'STRING', unit: null }], rows: [{ id: 'r1', cells: [`cell ${text}`] }] } as unknown as RunResult['tables'][number]],
    logs: [{ level: 'log', message: `log ${text}` } as RunResult['logs'][number]],
    warnings: [`warning ${text}`],
    http: [
      {
        method: 'POST',
        url: `http://127.0.0.1/login?p=${encodeURIComponent(PASSWORD)}`,
        status: 200,
        error: null,
        errorMessage: null,
        startedMs: 0,
        headersMs: 1,
        durationMs: 2,
        requestBytes: 1,
        responseBytes: 1,
        redirectedTo: null,
        request: { headers: { 'x-token': text }, body: `{"password":${JSON.stringify(PASSWORD)}}` },
        response: { headers: {}, body: `echo ${text}` },
      },
    ],
    action: 'get_status',
    limitExceeded: null,
    durationMs: 5,
  };
}

describe('P30 masking a run result', () => {
  it.each(Object.entries(leaks(PASSWORD)))('P30 the password as %s is masked in every field', (_form, leaked) => {
    const masked = new SecretMask([PASSWORD, USER, `${USER}:${PASSWORD}`]).result(result(leaked));
    const text = JSON.stringify(masked);
    for (const [name, form] of Object.entries(leaks(PASSWORD))) {
      // Cores of base64 at other alignments may leave a character or two at each end, never the secret.
      if (name.startsWith('inside')) continue;
      expect(text.includes(form), `${name} survives`).toBe(false);
    }
    expect(text).toContain(MASK);
    expect(masked.message).toMatch(/^message /);
  });

  it('P30 short secrets (under 3 characters) and other text are left alone', () => {
    const mask = new SecretMask(['ab', '', null, undefined]);
    expect(mask.empty).toBe(true);
    expect(mask.text('ab cd')).toBe('ab cd');
    expect(new SecretMask(['secret']).text('no match here')).toBe('no match here');
  });
});

describe('P31 writeRunResult and reportRun store no credential', () => {
  it('P31 a result holding the stored password in every form is written with *** (runs, variables, tables, activity)', async () => {
    const file = path.join(tempDir(), 'data', 'masked.db');
    const store = await openStore({ path: file, secretKey: 'store-secret' });
    const agent = await ensureLocalAgent(store);
    const device = await createDevice(store, agent.id, { displayName: 'd', ip: '127.0.0.1' });
    await setDeviceCredentials(store, device.id, 'CUSTOM_DRIVER_MANAGEMENT', { username: USER, password: PASSWORD });
    for (const leaked of Object.values(leaks(PASSWORD))) {
      await writeRunResult(store, { agentId: agent.id, deviceId: device.id, driverName: 'leaky.js' }, result(leaked));
    }
    const runs = JSON.stringify(await listDeviceRuns(store, device.id, 50));
    const tables = JSON.stringify(await listDeviceTables(store, device.id));
    expect(runs).toContain('log ***');
    expect(tables).toMatch(/cell [A-Za-z0-9+/=]*\*\*\*/);
    await store.close();
    const bytes = [file, `${file}-wal`].map((f) => { try { return readFileSync(f).toString('latin1'); } catch { return ''; } }).join('');
    for (const [name, form] of Object.entries(leaks(PASSWORD))) {
      if (name.startsWith('inside')) continue;
      expect(runs.includes(form) || tables.includes(form) || bytes.includes(form), `${name} stored`).toBe(false);
    }
  });

  it('P32 `driverbox run --report` masks the credentials given for the run (they are in no store)', async () => {
    const store = await openTestStore();
    const reported = await reportRun(store, { device: { ip: '10.0.0.9' }, driverName: 'x.js', result: result(`${PASSWORD} / ${USER}`), secrets: [USER, PASSWORD] });
    const text = JSON.stringify(await listDeviceRuns(store, reported.deviceId));
    expect(text).not.toContain(JSON.stringify(PASSWORD).slice(1, -1));
    expect(text).not.toContain(USER);
    expect(text).toContain('log *** / ***');
    await store.close();
  });
});

describe('P33-P34 store files are private', () => {
  const mode = (file: string) => statSync(file).mode & 0o777;

  it('P33 a new store: folder 0700, database, -wal and -shm 0600', async () => {
    const file = path.join(tempDir(), 'new', 'nested', 'store.db');
    const store = await openStore({ path: file });
    await ensureLocalAgent(store);
    expect(mode(path.dirname(file))).toBe(0o700);
    expect(mode(path.dirname(path.dirname(file)))).toBe(0o700);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f), f).toBe(0o600);
    await store.close();
  });

  it('P34 a store an older version left 0644 is tightened when opened; an existing folder of the user is left alone', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const file = path.join(dir, 'old.db');
    const old = openDatabase(file);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE t (a)');
    old.close();
    writeFileSync(`${file}-wal`, '');
    for (const f of [file, `${file}-wal`]) chmodSync(f, 0o644);
    const store = await openStore({ path: file });
    await ensureLocalAgent(store);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f), f).toBe(0o600);
    expect(mode(dir)).toBe(0o755);
    await store.close();
  });

  it('P34 the data folder and the key files made in it are private; an open data folder is tightened', () => {
    const dataDir = path.join(tempDir(), 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(path.join(dataDir, 'api-key'), 'an-api-key-of-old\n', { mode: 0o644 });
    chmodSync(path.join(dataDir, 'api-key'), 0o644);
    const config = resolveServerConfig({ flags: {}, env: { DRIVERBOX_DATA_DIR: dataDir }, cwd: dataDir });
    expect(config.apiKeys).toEqual(['an-api-key-of-old']);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, 'api-key'))).toBe(0o600);
    expect(mode(path.join(dataDir, 'secret.key'))).toBe(0o600);
    expect(config.externalHosts).toEqual([]);
    expect(config.warnings).toEqual([]);
  });

  it('P35 a secret key file of the operator that others can read is reported, not changed', () => {
    const dir = tempDir();
    const keyFile = path.join(dir, 'shared.key');
    writeFileSync(keyFile, 'a-secret-of-the-operator\n');
    chmodSync(keyFile, 0o644);
    const config = resolveServerConfig({ flags: { secretKeyFile: keyFile, apiKeys: ['an-api-key-1'] }, env: { DRIVERBOX_DATA_DIR: dir }, cwd: dir });
    expect(config.warnings).toEqual([`the secret key file ${keyFile} can be read by other users (mode 0644): chmod 600 it`]);
    expect(mode(keyFile)).toBe(0o644);
  });
});

describe('P36 the external-host setting', () => {
  const dir = tempDir();
  const resolve = (flags: Record<string, unknown>, file?: Record<string, unknown>) => {
    let config: string | undefined;
    if (file) {
      config = path.join(dir, `c-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(config, JSON.stringify(file));
    }
    return resolveServerConfig({ flags: { apiKeys: ['an-api-key-1'], secretKeyFile: undefined, config, ...flags }, env: { DRIVERBOX_DATA_DIR: dir, DRIVERBOX_SECRET_KEY: 'a-secret-key' }, cwd: dir });
  };

  it('P36 from the flag over the config file, lower-cased; none by default; a bad entry is a config error naming it', () => {
    expect(resolve({}).externalHosts).toEqual([]);
    expect(resolve({}, { externalHosts: ['API.example.com', '10.0.0.5'] }).externalHosts).toEqual(['api.example.com', '10.0.0.5']);
    expect(resolve({ externalHosts: ['*'] }, { externalHosts: ['a.example'] }).externalHosts).toEqual(['*']);
    expect(() => resolve({ externalHosts: ['a b'] })).toThrow(/--external-hosts must be a list of host names or IP addresses/);
    expect(() => resolve({}, { externalHosts: 'a.example' })).toThrow(/externalHosts must be a list of host names/);
    expect(() => resolve({}, { externalHosts: ['http://a.example/x'] })).toThrow(/externalHosts must be a list/);
  });
});
