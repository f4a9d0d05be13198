// The CLI side of what real clients need: `driverbox agents` gives a store filled through the CLI
// an Enterprise agent (the application operations answer) and agents shared with access rights;
// `driverbox serve --cors-origin` / corsOrigins lets browser pages call the API.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MonitoringApiError, MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { startMonitoringServer } from '../../host/api/monitoring/server.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { openStore } from '../../host/store/store.js';
import { runCli } from '../helpers/cli.js';
import { startServe } from '../helpers/serve-process.js';

const KEY = 'cli-habits-key';

/** A fresh data folder whose store already holds the local agent (as `driverbox serve` makes it). */
async function freshStore(): Promise<{ dir: string; storePath: string; localId: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-agents-'));
  const storePath = path.join(dir, 'driverbox.db');
  const store = await openStore({ path: storePath, secretKey: null });
  const localId = (await ensureLocalAgent(store)).id;
  await store.close();
  return { dir, storePath, localId };
}

/** Serves the store in this process while `fn` calls it through MonitoringClient. */
async function withApi<T>(storePath: string, fn: (client: MonitoringClient) => Promise<T>): Promise<T> {
  const store = await openStore({ path: storePath, secretKey: null });
  const server = await startMonitoringServer({ store, apiKeys: [KEY] });
  const client = new MonitoringClient({ baseUrl: server.url, apiKey: KEY });
  try {
    return await fn(client);
  } finally {
    await client.close();
    await server.close();
    await store.close();
  }
}

const statusOf = (promise: Promise<unknown>) => promise.then(() => 200, (error: unknown) => (error instanceof MonitoringApiError ? error.status : -1));

describe('driverbox agents', () => {
  it('set --plan enterprise makes the application operations answer; --plan standard makes them 403 again', async () => {
    const { dir, storePath, localId } = await freshStore();
    const env = { DRIVERBOX_STORE: storePath };
    await withApi(storePath, async (client) => expect(await statusOf(client.listAgentDeviceApplications(localId))).toBe(403));
    const set = await runCli(['agents', 'set', String(localId), '--plan', 'enterprise'], { env, cwd: dir });
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toBe(`changed agent ${localId} "driverbox": Enterprise plan, API enabled, access OWNED`);
    await withApi(storePath, async (client) => {
      expect(await client.listAgentDeviceApplications(localId)).toEqual([]);
      expect(await client.countAgentDeviceApplications(localId)).toBe(0);
    });
    expect((await runCli(['agents', 'set', String(localId), '--plan', 'STANDARD'], { env, cwd: dir })).code).toBe(0);
    await withApi(storePath, async (client) => expect(await statusOf(client.countAgentDeviceApplications(localId))).toBe(403));
  });

  it('add makes an agent with an access right shown by the API; --api-enabled no leaves it only listed', async () => {
    const { dir, storePath } = await freshStore();
    const added = await runCli(['agents', 'add', 'Branch office', '--access', 'granted', '--granting-user', 'owner@example.com', '--store', storePath], { cwd: dir });
    expect(added.code).toBe(0);
    const id = Number(/added agent (\d+) "Branch office": standard plan, API enabled, access GRANTED granted by owner@example\.com/.exec(added.stdout)?.[1]);
    expect(id).toBeGreaterThan(0);
    await withApi(storePath, async (client) => {
      expect((await client.getAgent(id)).access_right).toEqual({ api_enabled: true, granting_user: { name: 'owner@example.com' }, status: 'GRANTED' });
    });
    // Owned again: the granting user goes with the share. API access withdrawn: listed, nothing else.
    expect((await runCli(['agents', 'set', String(id), '--access', 'OWNED', '--api-enabled', 'no', '--store', storePath], { cwd: dir })).code).toBe(0);
    await withApi(storePath, async (client) => {
      const listed = (await client.listAgents()).find((a) => a.id === id);
      expect(listed?.access_right).toEqual({ api_enabled: false, status: 'OWNED' });
      expect(await statusOf(client.getAgent(id))).toBe(403);
    });
    const list = await runCli(['agents', 'list', '--store', storePath], { cwd: dir });
    expect(list.stdout).toMatch(/ID\s+NAME\s+PLAN\s+API\s+ACCESS\s+GRANTED BY/);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+Branch office\\s+standard\\s+no\\s+OWNED`));
    const json = JSON.parse((await runCli(['agents', 'list', '--json', '--store', storePath], { cwd: dir })).stdout) as Array<{ id: number; plan: string; display_name: string }>;
    expect(json.map((a) => [a.display_name, a.plan])).toEqual([
      ['driverbox', 'standard'],
      ['Branch office', 'standard'],
    ]);
  });

  it('refuses bad values with exit 2 and a specific message, and an unknown agent with exit 1', async () => {
    const { dir, storePath, localId } = await freshStore();
    const cases: Array<[string[], RegExp]> = [
      [['set', String(localId), '--plan', 'gold'], /--plan must be one of enterprise, standard \(got "gold"\)/],
      [['set', String(localId), '--access', 'SHARED'], /--access must be one of OWNED, PROPOSED, GRANTED, ASSIGNED \(got "SHARED"\)/],
      [['set', String(localId), '--api-enabled', 'maybe'], /--api-enabled must be yes or no \(got "maybe"\)/],
      [['set', String(localId), '--granting-user', 'bob'], /--granting-user must be an e-mail address/],
      [['set', String(localId)], /nothing to change; give --plan, --api-enabled, --access or --granting-user/],
      [['set', 'driverbox', '--plan', 'enterprise'], /agents set takes an agent id, a number \(got "driverbox"\)/],
      [['set', '--plan', 'enterprise'], /agents set needs one agent id/],
      [['add'], /agents add needs one display name/],
      [['list', '--plan', 'enterprise'], /agents list takes no --plan/],
      [['lsit'], /unknown agents command "lsit" \(did you mean list\?\)/],
      [['set', String(localId), '--pln', 'x'], /unknown option --pln \(did you mean --plan\?\)/],
    ];
    for (const [argv, message] of cases) {
      const result = await runCli(['agents', ...argv, '--store', storePath], { cwd: dir });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(message);
    }
    const missing = await runCli(['agents', 'set', '4242', '--plan', 'enterprise', '--store', storePath], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('has no agent 4242');
    expect((await runCli(['agents'], { cwd: dir })).code).toBe(2); // the help, as for drivers
  });
});

describe('driverbox serve --cors-origin', () => {
  const preflight = (url: string, origin: string) =>
    fetch(`${url}/public-api/v1/agent`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' } });

  it('lets the origins of the flags (repeatable) or of the config file call the API from a browser', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cors-'));
    const running = await startServe(['--cors-origin', 'http://localhost:1880', '--cors-origin', 'https://dash.example.com', '--api-key', KEY, '--quiet'], { DRIVERBOX_DATA_DIR: dir });
    try {
      expect(running.output()).toContain('CORS         browser pages of http://localhost:1880, https://dash.example.com');
      const answer = await preflight(running.url, 'https://dash.example.com');
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe('https://dash.example.com');
      expect(answer.headers.get('access-control-allow-headers')).toContain('X-Api-Key');
      // The Node-RED editor's first call: the document, without a key, from the page.
      const doc = await fetch(`${running.url}/public-api/v1/meta/open-api-definition`, { headers: { Origin: 'http://localhost:1880' } });
      expect(doc.status).toBe(200);
      expect(doc.headers.get('access-control-allow-origin')).toBe('http://localhost:1880');
      expect((await preflight(running.url, 'http://other.example')).status).toBe(403);
    } finally {
      await running.stop();
    }

    const config = path.join(dir, 'serve.json');
    // The config file also sets the plan and access right of the server's own agent.
    const localAgent = { plan: 'enterprise', access: 'GRANTED', grantingUser: 'owner@example.com' };
    writeFileSync(config, JSON.stringify({ apiKeys: [KEY], corsOrigins: ['*'], localAgent }));
    const fromConfig = await startServe(['--config', config, '--quiet'], { DRIVERBOX_DATA_DIR: dir });
    const client = new MonitoringClient({ baseUrl: fromConfig.url, apiKey: KEY });
    try {
      const answer = await preflight(fromConfig.url, 'http://any.example');
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      const [local] = await client.listAgents();
      expect(local?.access_right).toEqual({ api_enabled: true, granting_user: { name: 'owner@example.com' }, status: 'GRANTED' });
      expect(await client.listAgentDeviceApplications(local!.id)).toEqual([]); // Enterprise: answered
    } finally {
      await client.close();
      await fromConfig.stop();
    }
  }, 60_000);

  it('is off by default, said in the banner', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cors-'));
    const running = await startServe(['--api-key', KEY, '--quiet'], { DRIVERBOX_DATA_DIR: dir });
    try {
      expect(running.output()).toContain('CORS         off (--cors-origin to allow browser pages)');
      const answer = await preflight(running.url, 'http://localhost:1880');
      expect(answer.status).toBe(401);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await running.stop();
    }
  }, 60_000);

  it('refuses an origin that is not one, or a bad localAgent, with exit 2, from the flag or the config file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cors-'));
    const config = path.join(dir, 'bad.json');
    writeFileSync(config, JSON.stringify({ corsOrigins: ['localhost:1880'] }));
    const notList = path.join(dir, 'notlist.json');
    writeFileSync(notList, JSON.stringify({ corsOrigins: 'http://localhost:1880' }));
    const badPlan = path.join(dir, 'plan.json');
    writeFileSync(badPlan, JSON.stringify({ localAgent: { plan: 'gold' } }));
    const badLocal = path.join(dir, 'local.json');
    writeFileSync(badLocal, JSON.stringify({ localAgent: { plan: 'enterprise', enterprise: true } }));
    const badApi = path.join(dir, 'api.json');
    writeFileSync(badApi, JSON.stringify({ localAgent: { apiEnabled: 'yes' } }));
    const cases: Array<[string[], RegExp]> = [
      [['--config', badPlan], /plan\.json: localAgent\.plan must be one of enterprise, standard \(got "gold"\)/],
      [['--config', badLocal], /unknown field "localAgent\.enterprise"/],
      [['--config', badApi], /localAgent\.apiEnabled must be true or false/],
      [['--cors-origin', 'localhost:1880'], /--cors-origin: "localhost:1880" is not an origin: write scheme:\/\/host\[:port\]/],
      [['--cors-origin', 'http://a.example/app'], /"http:\/\/a\.example\/app" is not an origin/],
      [['--config', config], /bad\.json: corsOrigins: "localhost:1880" is not an origin/],
      [['--config', notList], /corsOrigins must be an array of origins/],
    ];
    for (const [argv, message] of cases) {
      const result = await runCli(['serve', ...argv], { env: { DRIVERBOX_DATA_DIR: dir }, cwd: dir });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(message);
    }
  });
});
