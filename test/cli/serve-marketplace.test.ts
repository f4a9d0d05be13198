// The Marketplace API and the application status as `driverbox serve` (the real bin) and the
// agent serve them: same keys as the Monitoring API, accounts kept in the store across restarts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve-process.js';
import { createAgent } from '../../host/server/agent-server.js';
import { MarketplaceAuthError, MarketplaceClient } from '../../host/api/marketplace/client/index.js';
import { openStore } from '../../host/store/store.js';
import { deviceAccount } from '../helpers/marketplace.js';
import { openTestStore } from '../helpers/store.js';

describe('driverbox serve', () => {
  it('serves the Marketplace API over its store with the same API keys, and the status without a scheduler module', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-serve-market-'));
    const env = { DRIVERBOX_DATA_DIR: dir };
    const args = ['--store', path.join(dir, 'market.db'), '--api-key', 'serve-market-key'];
    const first = await startServe([...args, '--quiet'], env);
    expect(first.output()).toContain(`Marketplace  ${first.url}/marketplace-api/v2 (and the deprecated /marketplace-api/v1)`);
    expect(first.output()).toContain(`status       ${first.url}/backend-api/v1/status`);
    const client = new MarketplaceClient({ baseUrl: first.url, apiKey: 'serve-market-key' });
    await client.createAccountV2(deviceAccount('served@example.com'));
    expect((await client.getAccount('served@example.com')).model).toBe('DEVICE');

    const status = await client.getStatus({ check_modules: true });
    expect(status.status).toBe('ok');
    expect(status.listening_port).toBe(Number(new URL(first.url).port));
    // serve has no scheduler: the module is left out rather than reported failing.
    expect(Object.keys(status.modules).sort()).toEqual(['http', 'sandbox', 'store']);
    expect(Object.values(status.modules).every((m) => m.status === 'ok' && m.error === null)).toBe(true);
    // serve schedules no runs, so it has no /metrics.
    expect((await fetch(`${first.url}/metrics`)).status).toBe(404);

    const wrong = new MarketplaceClient({ baseUrl: first.url, apiKey: 'other' });
    await expect(wrong.getAccountListV2()).rejects.toBeInstanceOf(MarketplaceAuthError);
    await expect(wrong.getStatus()).rejects.toBeInstanceOf(MarketplaceAuthError);
    expect((await first.stop()).code).toBe(0);

    // The accounts are in the store: a restarted serve has them.
    const second = await startServe([...args, '--quiet'], env);
    const again = new MarketplaceClient({ baseUrl: second.url, apiKey: 'serve-market-key' });
    expect((await again.getAccountListV2()).data).toEqual([{ email: 'served@example.com' }]);
    expect((await second.stop()).code).toBe(0);
    await Promise.all([client.close(), wrong.close(), again.close()]);
  });

  it('takes the marketplace name, agreements, access URL and trial length from the config file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-serve-market-'));
    const config = path.join(dir, 'serve.json');
    const agreements = {
      privacy_policy: { version: '2026-03', url: 'https://acme.example/privacy' },
      terms_and_conditions: { version: '9', url: 'https://acme.example/terms' },
    };
    writeFileSync(config, JSON.stringify({ apiKeys: ['config-market-key'], marketplace: { marketplace: 'acme', agreements, accessUrlBase: 'https://portal.acme.example/a', trialDays: 7 } }));
    const served = await startServe(['--store', ':memory:', '--config', config, '--quiet'], { DRIVERBOX_DATA_DIR: dir });
    const client = new MarketplaceClient({ baseUrl: served.url, apiKey: 'config-market-key' });
    try {
      expect(await client.getPrivacyPolicyV2()).toEqual(agreements);
      const created = await client.createAccountV2(deviceAccount('cfg@example.com'));
      expect(created.access_url.startsWith('https://portal.acme.example/a/')).toBe(true);
      const now = new Date();
      const report = await client.getBillingReportV2(now.getUTCFullYear(), now.getUTCMonth() + 1);
      expect(report.metadata.marketplace).toBe('acme');
    } finally {
      await client.close();
      expect((await served.stop()).code).toBe(0);
    }
  });
});

describe('the agent', () => {
  it('serves the Marketplace API beside the status, whose modules include the scheduler', async () => {
    const store = await openTestStore();
    const agent = createAgent({ store, storeRefreshMs: 0, api: { apiKeys: ['agent-market-key'] } });
    await agent.start();
    const client = new MarketplaceClient({ baseUrl: agent.url!, apiKey: 'agent-market-key' });
    try {
      await client.createAccountV2(deviceAccount('agent@example.com'));
      expect((await client.getAccountV2('agent@example.com')).email).toBe('agent@example.com');
      const status = await client.getStatus({ check_modules: true });
      expect(Object.keys(status.modules).sort()).toEqual(['http', 'sandbox', 'scheduler', 'store']);
      expect((await fetch(`${agent.url}/metrics`)).status).toBe(200);
    } finally {
      await client.close();
      await agent.stop({ graceMs: 0 });
      await store.close();
    }
  });
});
