// `driverbox serve`: the real bin/driverbox.js serving the Monitoring API until SIGTERM,
// with the key and secret made once in the data folder; and its usage / config errors.
import net from 'node:net';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve-process.js';
import { runCli } from '../helpers/cli.js';
import { MonitoringAuthError, MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { openStore } from '../../host/store/store.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createDevice } from '../../host/store/fleet/devices.js';

const runMain = (argv: string[], env: NodeJS.ProcessEnv = {}, cwd = tmpdir()) => runCli(argv, { env, cwd });

describe('driverbox serve', () => {
  it('makes an API key and a secret once in the data folder, serves the API with them, and stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'driverbox-serve-'));
    const first = await startServe([], { DRIVERBOX_DATA_DIR: dataDir });
    const key = readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
    expect(statSync(path.join(dataDir, 'api-key')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(first.output()).toContain(`store        ${path.join(dataDir, 'driverbox.db')}`);
    const client = new MonitoringClient({ baseUrl: first.url, apiKey: key });
    const doc = await client.getOpenApiDefinition();
    expect(doc.openapi).toBe('3.0.3');
    const bad = new MonitoringClient({ baseUrl: first.url, apiKey: 'not-the-key' });
    await expect(bad.listAgents()).rejects.toBeInstanceOf(MonitoringAuthError);
    const stopped = await first.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toMatch(/GET \/public-api\/v1\/meta\/open-api-definition → 200/);
    expect(stopped.stdout).toMatch(/→ 401/);
    expect(stopped.stdout).toContain('Stopped (SIGTERM).');

    // A restart keeps the same key.
    const second = await startServe([], { DRIVERBOX_DATA_DIR: dataDir });
    const again = new MonitoringClient({ baseUrl: second.url, apiKey: key });
    await expect(again.getOpenApiDefinition()).resolves.toHaveProperty('paths');
    expect((await second.stop()).code).toBe(0);
    await Promise.all([client.close(), bad.close(), again.close()]);
  });

  it('takes keys from the flags over the environment and the config file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-serve-'));
    const config = path.join(dir, 'serve.json');
    writeFileSync(config, JSON.stringify({ store: 'here.db', apiKeys: ['from-config-file'], secretKey: 'config-secret' }));
    const running = await startServe(['--config', config, '--api-key', 'from-the-flag', '--quiet'], { DRIVERBOX_DATA_DIR: dir, DRIVERBOX_API_KEYS: 'from-env-key' });
    const flagClient = new MonitoringClient({ baseUrl: running.url, apiKey: 'from-the-flag' });
    const configClient = new MonitoringClient({ baseUrl: running.url, apiKey: 'from-config-file' });
    await expect(flagClient.listAgents()).resolves.toBeTruthy();
    await expect(configClient.listAgents()).rejects.toBeInstanceOf(MonitoringAuthError);
    expect(running.output()).toContain(`store        ${path.join(dir, 'here.db')}`);
    expect(running.output()).toContain('from --api-key');
    const stopped = await running.stop();
    expect(stopped.stdout).not.toMatch(/→ 200/); // --quiet
    await Promise.all([flagClient.close(), configClient.close()]);
  });

  it('probes TCP sensors every --probe-interval: a port that closes turns DOWN', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-serve-'));
    const storeFile = path.join(dir, 'probe.db');
    const seeded = await openStore({ path: storeFile, secretKey: 'probe-secret' });
    const agentId = (await ensureLocalAgent(seeded)).id;
    const deviceId = (await createDevice(seeded, agentId, { displayName: 'box', ip: '127.0.0.1' })).id;
    await seeded.close();
    const listener = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as net.AddressInfo).port;

    const running = await startServe(['--store', storeFile, '--api-key', 'probe-key-1', '--probe-interval', '1', '--quiet'], { DRIVERBOX_DATA_DIR: dir, DRIVERBOX_SECRET_KEY: 'probe-secret' });
    expect(running.output()).toContain('TCP sensors  probed every 1 s');
    const client = new MonitoringClient({ baseUrl: running.url, apiKey: 'probe-key-1' });
    await client.createEyeTCP(agentId, deviceId, { port });
    expect((await client.listEyesTCP(agentId, deviceId)).map((s) => s.status)).toEqual(['UP']);
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    let status = 'UP';
    for (let i = 0; i < 40 && status === 'UP'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await client.listEyesTCP(agentId, deviceId))[0]!.status;
    }
    expect(status).toBe('DOWN');
    await client.close();
    expect((await running.stop()).code).toBe(0);
  });

  it('refuses bad flags and config files with exit 2 and a specific message', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-serve-'));
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ listen: { port: 'x' } }));
    const unknown = path.join(dir, 'unknown.json');
    writeFileSync(unknown, JSON.stringify({ apiKey: 'x' }));
    const badTerms = path.join(dir, 'terms.json');
    writeFileSync(badTerms, JSON.stringify({ marketplace: { agreements: { privacy_policy: { version: '1', url: 'https://x.example/p' }, terms_and_conditions: { version: '1', url: 'not a url' } } } }));
    const inventory = path.join(dir, 'inventory.yaml');
    writeFileSync(inventory, 'version: 1\n');
    const badMarket = path.join(dir, 'market.json');
    writeFileSync(badMarket, JSON.stringify({ marketplace: { trialDays: 30, currency: 'EUR' } }));
    const cases: Array<[string[], RegExp]> = [
      [['--port', 'abc'], /--port must be an integer/],
      [['--port', '70000'], /--port must be a port number/],
      [['--config', path.join(dir, 'missing.json')], /cannot read the config file .*missing\.json: no such file/],
      [['--config', bad], /listen\.port must be a port number/],
      [['--config', unknown], /unknown field "apiKey"/],
      [['--config', badTerms], /terms\.json: marketplace: agreements\.terms_and_conditions\.url must be an absolute URL, got "not a url"/],
      [['--config', badMarket], /unknown field "marketplace\.currency"/],
      [['--api-key', 'short'], /API keys must be 8 characters or more/],
      [['--config', inventory], /--config .*inventory\.yaml is an agent inventory, not a server config file: run it with driverbox agent --inventory /],
      [['--bogus'], /unknown option --bogus\n/],
      [['--api-kye', 'x'], /unknown option --api-kye \(did you mean --api-key\?\)/],
      [['extra'], /serve takes no arguments/],
    ];
    for (const [argv, message] of cases) {
      const result = await runMain(['serve', ...argv], { DRIVERBOX_DATA_DIR: dir }, dir);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(message);
    }
  });

  it('exits 1 naming the store when its secret does not match', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-serve-'));
    const storeFile = path.join(dir, 'x.db');
    const first = await startServe(['--store', storeFile], { DRIVERBOX_DATA_DIR: dir, DRIVERBOX_SECRET_KEY: 'first-secret' });
    await first.stop();
    // The first run sealed the store's check text with first-secret.
    const result = await runMain(['serve', '--store', storeFile], { DRIVERBOX_DATA_DIR: dir, DRIVERBOX_SECRET_KEY: 'other-secret' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/secret key does not match/);
  });
});
