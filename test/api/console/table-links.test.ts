// The web console's driver table (Debian's chromium through playwright-core, against a real
// server over a test store): a cell that table.addMetrics gave a `url` metadata is a link to that
// web page, opened apart (noopener, no referrer); a url that is not http(s) (javascript:, data:)
// stays text, as does every cell without one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../../host/api/console/console-routes.js';
import { driverboxApiRoutes } from '../../../host/api/driverbox/runs-routes.js';
import { startMonitoringServer, type RunningMonitoringServer } from '../../../host/api/monitoring/server.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { writeRunResult } from '../../../host/store/runs/report-run.js';
import type { Store } from '../../../host/store/store.js';
import { chromiumInstalled, CHROMIUM_PATH, openBrowser, type BrowserSession } from '../../helpers/browser.js';
import { runSource, useHost } from '../../helpers/host.js';
import { openTestStore } from '../../helpers/store.js';

const KEY = 'console-table-links-key-1';
const LENS = 'https://lens.example.com/manage/inventory/details/00e0db123456?tenantid=t1';
const host = useHost();
let store: Store;
let server: RunningMonitoringServer;
let browser: BrowserSession;
let agentId: number;
let deviceId: number;

beforeAll(async () => {
  if (!chromiumInstalled()) throw new Error(`${CHROMIUM_PATH} is missing: scripts/install-test-peers.sh installs Debian's chromium`);
  store = await openTestStore({ secretKey: 'test-secret' });
  agentId = (await createAgentRecord(store, { displayName: 'lab agent' })).id;
  deviceId = (await createDevice(store, agentId, { displayName: 'lens-hub', ip: '10.0.0.30' })).id;
  // The table as a real run makes it, through the sandbox and the host's check.
  const result = await runSource(
    host,
    `function get_status() {
      var t = D.createTable('All Devices', [{ label: 'Name' }, { label: 'Poly Link' }]);
      t.addMetrics('d1', [{ value: 'camera one', metadata: {} }, { value: 'open in Lens', metadata: { url: '${LENS}' } }]);
      t.addMetrics('d2', [{ value: 'camera two' }, { value: 'bad link', metadata: { url: 'javascript:alert(document.domain)' } }]);
      t.addMetrics('d3', [{ value: 'camera three', metadata: { url: 'data:text/html,<b>x</b>' } }, { value: '', metadata: { url: 'https://lens.example.com/d3' } }]);
      t.insertRecord('d4', ['camera four', null]);
      D.success(t);
    }`,
  );
  expect(result.status).toBe('success');
  await writeRunResult(store, { agentId, deviceId, driverName: 'lens.js' }, result);
  server = await startMonitoringServer({
    store,
    apiKeys: [KEY],
    host,
    extraRoutes: async (app) => {
      await app.register(driverboxApiRoutes, { store, apiKeys: [KEY], host });
      await app.register(consoleRoutes);
    },
  });
  browser = await openBrowser({ width: 1280, height: 860 });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await store?.close();
});

describe("web console: links in a driver's table (chromium)", () => {
  it('shows a url metadata as a link to that page; other cells, and urls that are not http(s), stay text', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    const input = page.getByLabel('API key');
    await input.fill(KEY);
    await input.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    await page.goto(`${server.url}/#/agent/${agentId}/device/${deviceId}`);
    const table = page.locator('.device-tables section');
    await table.getByRole('heading', { level: 2, name: 'Table: All Devices (4 rows)' }).waitFor();
    const rows = table.locator('table.driver-table tbody tr');
    expect(await rows.allTextContents()).toEqual(['d1camera oneopen in Lens', 'd2camera twobad link', 'd3camera threehttps://lens.example.com/d3', 'd4camera four—']);
    const links = table.locator('table.driver-table tbody a');
    expect(await links.count()).toBe(2);
    const lens = table.getByRole('link', { name: 'open in Lens' });
    expect(await lens.getAttribute('href')).toBe(LENS);
    expect(await lens.getAttribute('target')).toBe('_blank');
    expect(await lens.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    // An empty value shows the address it links to.
    expect(await table.getByRole('link', { name: 'https://lens.example.com/d3' }).getAttribute('href')).toBe('https://lens.example.com/d3');
    expect(await table.getByRole('link', { name: 'bad link' }).count()).toBe(0);
    expect(await table.getByRole('link', { name: 'camera three' }).count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
