// The web console in a real browser (Debian's chromium through playwright-core) against a real
// server over a seeded test store: sign in (a wrong key refused, the right one kept in
// sessionStorage only), agents → devices → variables, a variable's history plotted with as many
// points as the store holds in the chosen window, a STRING variable as its list of changes,
// hover values and keyboard zoom, the device's tables, the runs (older ones past the first 200), the
// schedule (a real agent's, and serve mode's notice), the driver library and the editor (CodeMirror,
// loaded only when opened: completion of D's members, a trial run against a simulated device of the
// store showing its variables, table, log and exchange, saving a new version, a trial against a
// simulated device driverbox ships), the main pages at a phone's width (390 × 844) without sideways
// scrolling, and no console error.
//
// DRIVERBOX_CONSOLE_SCREENSHOTS=docs/reference/console also writes the screenshots of docs/reference/console/.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Agent } from '../../../host/agent/agent.js';
import type { AgentRunSkipped } from '../../../host/agent/agent-types.js';
import { createAgent } from '../../../host/server/agent-server.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../../host/api/console/console-routes.js';
import { driverboxApiRoutes } from '../../../host/api/driverbox/runs-routes.js';
import { startMonitoringServer, type RunningMonitoringServer } from '../../../host/api/monitoring/server.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import type { Store } from '../../../host/store/store.js';
import { writeVariable } from '../../../host/store/results/variables.js';
import { writeRunResult } from '../../../host/store/runs/report-run.js';
import { createAssociation } from '../../../host/store/drivers/associations.js';
import { createCustomDriver } from '../../../host/store/drivers/custom-drivers.js';
import { getCustomDriver } from '../../../host/store/drivers/custom-drivers.js';
import { startSimulator, type Simulator } from '../../../host/simulator/simulator.js';
import { useHost } from '../../helpers/host.js';
import { setDeviceStatus } from '../../../host/store/fleet/status-history.js';
import { failure, success } from '../../helpers/run-results.js';
import { chromiumInstalled, CHROMIUM_PATH, openBrowser, type BrowserSession } from '../../helpers/browser.js';
import { openTestStore } from '../../helpers/store.js';

const KEY = 'console-browser-key-1';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const screenshots = process.env.DRIVERBOX_CONSOLE_SCREENSHOTS;
/** A phone's viewport (an iPhone 12–15's CSS pixels). */
const PHONE = { width: 390, height: 844 };

/** Replaces the editor's whole text as a user's paste does (the browser's own insertText would edit the DOM behind CodeMirror). */
async function pasteCode(page: BrowserSession['page'], code: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'Driver code' });
  await editor.click();
  await page.keyboard.press('Control+A');
  await editor.evaluate((el, text) => {
    const data = new DataTransfer();
    data.setData('text/plain', text);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, code);
}

let store: Store;
let server: RunningMonitoringServer;
let browser: BrowserSession;
let agentId: number;
let deviceId: number;
let loadId: number;
let firmwareId: number;
let benchAgentId: number;
let thermometerId: number;
let driverId: number;
let sim: Simulator;
let upsDriverId: number;
let cloudDriverId: number;
let slowDevice: DeviceServer;
let agent: Agent | undefined;
let agentStore: Store | undefined;
let busyRunIds: number[] = [];
const host = useHost();
/** Every script file the browser asked for, to see when the editor's chunk is fetched. */
const scripts: string[] = [];

const THERMOMETER = `function validate() { D.success(); }

function get_status() {
  D.device.http.get({ url: '/reading' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    var reading = JSON.parse(body);
    console.info('read ' + reading.celsius + ' at ' + D.getParameter('site'));
    var probes = D.createTable('Probes', [{ label: 'Celsius', valueType: D.valueType.NUMBER }]);
    probes.insertRecord('probe-1', [reading.celsius]);
    D.success([D.createVariable('temperature', 'Temperature', reading.celsius, 'C', D.valueType.NUMBER)], probes);
  });
}
`;
/** Answers after 2.5 s: with a 1 s period, the agent skips the due times that come meanwhile. */
const SLOW = `function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/slow?ms=2500' }, function (error) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    D.success();
  });
}
`;
/** The edit the test types: one more variable, the reading's mode. */
const EDITED = THERMOMETER.replace(
  "D.success([D.createVariable('temperature', 'Temperature', reading.celsius, 'C', D.valueType.NUMBER)], probes);",
  "D.success([D.createVariable('temperature', 'Temperature', reading.celsius, 'C', D.valueType.NUMBER), D.createVariable('mode', 'Mode', reading.mode)], probes);",
);

/** Samples of "CPU load": 20 in the last 24 hours (2 in the last hour), 3 more 8 to 10 days ago. */
const LOAD_AGES = [...[10, 9, 8].map((d) => d * DAY), ...Array.from({ length: 20 }, (_, i) => (19 - i) * 55 * MINUTE)];
const IN_24H = 20;
const IN_1H = 2;
/** Runs of the bench agent's thermometer: more than the runs page's first 200. */
const BUSY_RUNS = 230;
const FIRMWARE = ['1.0.2', '1.0.2', '1.1.0', '1.1.0', '1.2.0'];

async function seed(now: number): Promise<void> {
  const agent = await createAgentRecord(store, { displayName: 'lab agent', agentVersion: '0.1.0' });
  agentId = agent.id;
  const device = await createDevice(store, agentId, { displayName: 'nas-01', ip: '10.0.0.7', vendor: 'Synology', model: 'DS920+' });
  deviceId = device.id;
  await createDevice(store, agentId, { displayName: 'camera-lobby', ip: '10.0.0.21', status: 'DOWN' });
  const owner = { agentId, deviceId };
  for (const [i, age] of LOAD_AGES.entries()) {
    loadId = await writeVariable(store, owner, { path: 'cpu.load', label: 'CPU load', unit: '%', value: String(20 + ((i * 7) % 30) + 0.5), valueType: 'NUMBER' }, now - age);
  }
  for (const [i, value] of FIRMWARE.entries()) {
    firmwareId = await writeVariable(store, owner, { path: 'fw.version', label: 'Firmware', value, valueType: 'STRING' }, now - (FIRMWARE.length - i) * 10 * MINUTE);
  }
  // nas-01, known for two days, was down for an hour, 3 to 2 hours ago.
  await store.statement('UPDATE devices SET first_seen_on = ? WHERE id = ?').run(now - 2 * DAY, deviceId);
  await setDeviceStatus(store, deviceId, 'DOWN', { at: now - 3 * 60 * MINUTE });
  await setDeviceStatus(store, deviceId, 'ONLINE', { at: now - 2 * 60 * MINUTE });
  await writeVariable(store, owner, { path: 'disk.free', label: 'Free space', unit: 'GB', value: '1834', valueType: 'NUMBER' }, now - 5 * MINUTE);
  const exchange = { method: 'GET', url: 'http://10.0.0.7:5000/webapi/auth.cgi', status: 200, error: null, errorMessage: null, startedMs: 2, headersMs: 9, durationMs: 11, requestBytes: 0, responseBytes: 310, redirectedTo: null };
  const target = { agentId, deviceId, driverName: 'synology.js' };
  const volumes = { label: 'Volumes', columnHeaders: [{ label: 'Used', unit: '%', valueType: 'NUMBER' as const }, { label: 'State', unit: null, valueType: 'STRING' as const }], rows: [['vol1', '41', 'ok'], ['vol2', '87', 'degraded']] };
  await writeRunResult(store, target, success([], { http: [exchange], logs: [{ level: 'info', message: 'session opened' }], durationMs: 140, tables: [volumes] }));
  await writeRunResult(
    store,
    target,
    failure('AUTHENTICATION_ERROR', 'the NAS refused the password', {
      http: [{ ...exchange, status: 401, request: { headers: { authorization: '***' }, body: null }, response: { headers: { 'content-type': 'application/json' }, body: '{"error":105}' } }],
      logs: [{ level: 'warn', message: 'login answered 401' }, { level: 'error', message: 'giving up' }],
      durationMs: 95,
    }),
  );
  await writeRunResult(store, target, success([], { durationMs: 120 }));
  await writeVariable(store, owner, { path: 'model.name', label: 'Model', value: 'DS920+', valueType: 'STRING', hasHistory: false }, now - 5 * MINUTE);

  // The driver library: a thermometer driver applied to a simulated thermometer of a second agent.
  benchAgentId = (await createAgentRecord(store, { displayName: 'bench agent' })).id;
  thermometerId = (await createDevice(store, benchAgentId, { displayName: 'thermometer', ip: sim.device.ip, portMap: sim.portMap })).id;
  driverId = (
    await createCustomDriver(store, {
      name: 'Thermometer',
      description: 'Reads a bench thermometer over HTTP',
      code: THERMOMETER,
      minimalSamplePeriod: 600,
      parameters: [{ name: 'site', valueType: 'STRING', defaultValue: 'bench', description: 'Where the probe is' }],
    })
  ).id;
  const siteId = (await getCustomDriver(store, driverId))!.parameters[0]!.id;
  await createAssociation(store, { customDriverId: driverId, agentId: benchAgentId, deviceId: thermometerId, parameters: [{ parameterId: siteId, value: 'lab 2' }] });
  // The UPS example's driver, to run against the simulated UPS driverbox ships.
  upsDriverId = (await createCustomDriver(store, { name: 'UPS status', code: readFileSync(new URL('../../../drivers-examples/ups-status/driver.js', import.meta.url), 'utf8') })).id;
  // The cloud example's driver, whose simulated device answers over HTTPS (its vendor's cloud).
  cloudDriverId = (await createCustomDriver(store, { name: 'Cloud energy', code: readFileSync(new URL('../../../drivers-examples/cloud-energy/driver.js', import.meta.url), 'utf8') })).id;
  // Older runs than a page holds (past the store's 100 kept per device: this device keeps all).
  busyRunIds = [];
  for (let i = 0; i < BUSY_RUNS; i++) {
    const result = i % 50 === 7 ? failure('RESOURCE_UNAVAILABLE', 'no reading', { durationMs: 30 }) : success([], { durationMs: 20 + (i % 9) });
    busyRunIds.push((await writeRunResult(store, { agentId: benchAgentId, deviceId: thermometerId, driverName: 'thermometer.js' }, result, { keepRunsPerDevice: null })).runId);
  }
}

async function shoot(name: string): Promise<void> {
  if (!screenshots) return;
  mkdirSync(screenshots, { recursive: true });
  await browser.page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  if (!chromiumInstalled()) throw new Error(`${CHROMIUM_PATH} is missing: scripts/install-test-peers.sh installs Debian's chromium`);
  sim = await startSimulator({ fixture: 1, routes: [{ path: '/reading', responses: [{ json: { celsius: 21.5, mode: 'eco' } }] }] });
  slowDevice = await startDeviceServer();
  store = await openTestStore({ secretKey: 'test-secret' });
  await seed(Date.now());
  server = await startMonitoringServer({ store, apiKeys: [KEY], host, extraRoutes: async (app) => {
      await app.register(driverboxApiRoutes, { store, apiKeys: [KEY], host });
      await app.register(consoleRoutes);
    },
  });
  browser = await openBrowser({ width: 1280, height: 860 });
  browser.page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
});

afterAll(async () => {
  await browser?.close();
  await agent?.stop({ graceMs: 0 });
  await agentStore?.close();
  await slowDevice?.close();
  await server?.close();
  await store?.close();
  await sim?.close();
});

describe('web console (chromium)', () => {
  it('refuses a wrong key with a clear message, verified by the API, and keeps nothing', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.waitForURL(/#\/login/);
    const input = page.getByLabel('API key');
    await expect.poll(() => input.evaluate((el) => el === document.activeElement)).toBe(true);
    await shoot('login-laptop');
    await input.fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/refused this key \(invalid API key\)/);
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    await shoot('login-refused-laptop');
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
    // The refused call is the one error the browser itself logs (a failed resource load, 401).
    expect(browser.errors.every((e) => /Failed to load resource.*401/.test(e))).toBe(true);
    browser.errors.length = 0;
  });

  it('signs in with the keyboard and keeps the key in sessionStorage only', async () => {
    const { page } = browser;
    const input = page.getByLabel('API key');
    await input.fill(KEY);
    await input.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    expect(await page.evaluate(() => ({ session: sessionStorage.getItem('driverbox.apiKey'), local: localStorage.length, cookie: document.cookie }))).toEqual({
      session: KEY,
      local: 0,
      cookie: '',
    });
    await shoot('agents-laptop');
  });

  it('goes from the agent to its devices and a device with live variables', async () => {
    const { page } = browser;
    await expect.poll(() => page.locator('.cards .card').count()).toBe(2);
    await page.getByRole('link', { name: 'lab agent' }).click();
    await page.getByRole('heading', { level: 1, name: 'lab agent' }).waitFor();
    const rows = page.locator('table.list tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.locator('table.list').textContent()).toContain('10.0.0.21');
    await page.getByRole('link', { name: 'nas-01' }).click();
    await page.getByRole('heading', { level: 1, name: 'nas-01' }).waitFor();
    // The heading took the focus after the navigation.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    const variables = page.locator('table.variables tbody tr');
    await expect.poll(() => variables.count()).toBe(4);
    expect(await page.locator(`tr[data-variable-id="${loadId}"] .value`).textContent()).toMatch(/% *$/);
    // A variable without history is not a link.
    expect(await page.getByRole('link', { name: 'Model' }).count()).toBe(0);
    // The device's driver table, as its last run reported it.
    const table = page.locator('.device-tables section');
    await table.getByRole('heading', { level: 2, name: 'Table: Volumes (2 rows)' }).waitFor();
    expect(await table.locator('table.driver-table thead').textContent()).toMatch(/Record.*Used.*\(%\).*State/);
    expect(await table.locator('table.driver-table tbody tr').allTextContents()).toEqual(['vol141ok', 'vol287degraded']);
  });

  it('plots a NUMBER variable with the points of the window, values on hover', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'CPU load' }).click();
    const chart = page.locator(`figure.chart[data-points="${IN_24H}"]`);
    await chart.waitFor();
    await chart.locator('canvas').waitFor();
    expect(await chart.locator('.samples tbody tr').count()).toBe(IN_24H);
    expect(page.url()).toContain(`/variable/${loadId}`);
    // Hover: the legend shows the value under the cursor.
    const over = chart.locator('.u-over');
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width - 4, box.y + box.height / 2);
    await expect.poll(() => chart.locator('.u-legend .u-series').nth(1).locator('.u-value').textContent()).toMatch(/\d %$/);
    await shoot('device-chart-laptop');

    // Drag across the middle half to zoom in; double-click to see the whole window again.
    const zoomLine = chart.locator('.zoom-line');
    await page.mouse.move(box.x + box.width * 0.25, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 4 });
    await page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    await chart.locator('[data-zoomed="true"]').waitFor();
    const zoomedTo = Number(/\((\d+) samples?\)/.exec((await zoomLine.textContent()) ?? '')?.[1]);
    expect(zoomedTo).toBeGreaterThan(0);
    expect(zoomedTo).toBeLessThan(IN_24H);
    // The table keeps every sample of the window.
    expect(await chart.locator('.samples tbody tr').count()).toBe(IN_24H);
    await shoot('device-chart-zoomed-laptop');
    await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => chart.locator('[data-zoomed="true"]').count()).toBe(0);
    // The keyboard's way back: a button.
    await page.mouse.move(box.x + box.width * 0.1, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 6 });
    await page.mouse.up();
    await chart.locator('[data-zoomed="true"]').waitFor();
    await page.getByRole('button', { name: 'Show the whole window' }).press('Enter');
    await expect.poll(() => chart.locator('[data-zoomed="true"]').count()).toBe(0);

    // The keyboard's zoom: Tab to the chart, + twice (a quarter of the day, around its middle), ← moves
    // to earlier samples, − zooms out, 0 shows the whole window.
    const figure = chart.locator('.chart-box');
    await figure.focus();
    expect(await figure.evaluate((el) => el === document.activeElement && el.getAttribute('tabindex'))).toBe('0');
    const inView = async () => Number(/\((\d+) samples?\)/.exec((await zoomLine.textContent()) ?? '')?.[1]);
    const span = async () => {
      const [from, to] = (/Zoomed to (.+) – (.+) \(/.exec((await zoomLine.textContent()) ?? '') ?? []).slice(1).map((t) => Date.parse(t.replace(' ', 'T')));
      return to! - from!;
    };
    await page.keyboard.press('+');
    await chart.locator('[data-zoomed="true"]').waitFor();
    expect(await span()).toBeCloseTo(12 * 60 * MINUTE, -4);
    await page.keyboard.press('+');
    await expect.poll(span).toBeLessThan(6 * 60 * MINUTE + 2000);
    const middle = await inView();
    expect(middle).toBeGreaterThan(0);
    expect(middle).toBeLessThan(IN_24H);
    const before = await zoomLine.textContent();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => zoomLine.textContent()).not.toBe(before);
    expect(await span()).toBeCloseTo(6 * 60 * MINUTE, -4);
    await page.keyboard.press('-');
    await expect.poll(span).toBeGreaterThan(11 * 60 * MINUTE);
    await page.keyboard.press('0');
    await expect.poll(() => chart.locator('[data-zoomed="true"]').count()).toBe(0);

    // The device's status over the same window: the hour it was down.
    const status = page.locator('section.status-history');
    await status.locator('.uptime').waitFor();
    expect(await status.locator('.uptime').textContent()).toMatch(/Uptime\d+\.\d\d %/);
    expect(await status.locator('.downtimes li').allTextContents()).toEqual([expect.stringMatching(/\(1\.0 h\)$/)]);
    const changes = await status.locator('table.status-events tbody tr').allTextContents();
    // Newest first: added (the seed's own creation event, now), up, down.
    expect(changes).toEqual([expect.stringMatching(/added$/), expect.stringMatching(/up$/), expect.stringMatching(/down$/)]);

    await page.getByRole('link', { name: 'Last 1 hour' }).click();
    await page.locator(`figure.chart[data-points="${IN_1H}"]`).waitFor();
    expect(await page.getByRole('link', { name: 'Last 1 hour' }).getAttribute('aria-current')).toBe('true');
    await page.getByRole('link', { name: 'Last 7 days' }).click();
    // The samples 8 to 10 days old are outside the week.
    await page.locator(`figure.chart[data-points="${IN_24H}"]`).waitFor();
    expect(await page.locator('figure.chart .samples tbody tr').count()).toBe(IN_24H);
  });

  it('shows a STRING variable as its list of changes', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Firmware' }).click();
    const changes = page.locator(`.changes[data-points="${FIRMWARE.length}"]`);
    await changes.waitFor();
    expect(await changes.locator('tbody tr').allTextContents()).toEqual([
      expect.stringContaining('1.2.0'),
      expect.stringContaining('1.1.0'),
      expect.stringContaining('1.0.2'),
    ]);
    expect(await changes.locator('caption').textContent()).toContain(`3 changes in ${FIRMWARE.length} samples`);
    expect(page.url()).toContain(`/variable/${firmwareId}`);
  });

  it('lists the runs failures first, filters them, and shows one with its log and exchanges', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Runs of this device' }).click();
    await page.getByRole('heading', { level: 1, name: 'Runs of lab agent' }).waitFor();
    const rows = page.locator('table.runs tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.first().textContent()).toContain('failure');
    await shoot('runs-laptop');
    await page.getByLabel('Outcome').selectOption('success');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.locator('table.runs').textContent()).not.toContain('failure');
    await page.getByLabel('Outcome').selectOption('');
    await expect.poll(() => rows.count()).toBe(3);
    await rows.first().getByRole('link').click();
    await page.getByRole('heading', { level: 2, name: 'HTTP exchanges (1)' }).waitFor();
    expect(await page.locator('.facts').textContent()).toContain('the NAS refused the password');
    expect(await page.locator('ol.log li').allTextContents()).toEqual([expect.stringMatching(/warn.*login answered 401/), expect.stringMatching(/error.*giving up/)]);
    const exchange = page.locator('table.exchanges tbody tr');
    expect(await exchange.textContent()).toContain('http://10.0.0.7:5000/webapi/auth.cgi');
    expect(await exchange.textContent()).toContain('401');
    await exchange.getByText('Headers and bodies').click();
    expect(await exchange.locator('pre.code').allTextContents()).toEqual(['authorization: ***', 'content-type: application/json', '{"error":105}']);
    await shoot('run-laptop');
  });

  it('pages the runs past the first 200 with "Older runs"', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/#/agent/${benchAgentId}/runs?order=newest`);
    await page.getByRole('heading', { level: 1, name: 'Runs of bench agent' }).waitFor();
    const rows = page.locator('table.runs tbody tr');
    await expect.poll(() => rows.count()).toBe(200);
    expect(await page.locator('table.runs caption').textContent()).toContain(`${BUSY_RUNS} runs, the first 200 shown`);
    const before = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-run-id'))));
    const all = (await (await fetch(`${server.url}/driverbox-api/v1/agent/${benchAgentId}/run?order=newest&page_size=500`, { headers: { 'x-api-key': KEY } })).json()) as { runs: Array<{ id: number; outcome: string }> };
    // Between the two loads a run is recorded and two shown ones (successes) are pruned: offset
    // paging would now skip the 201st run; the cursor starts right after the last one shown.
    const added = (await writeRunResult(store, { agentId: benchAgentId, deviceId: thermometerId, driverName: 'thermometer.js' }, success([], { durationMs: 5 }), { keepRunsPerDevice: null })).runId;
    const pruned = all.runs.slice(50, 60).filter((r) => r.outcome === 'success').slice(0, 2).map((r) => r.id);
    for (const id of pruned) await store.statement<[number]>('DELETE FROM runs WHERE id = ?').run(id);
    await page.getByRole('button', { name: /^Older runs/ }).click();
    await expect.poll(() => rows.count()).toBe(BUSY_RUNS);
    // Every run once, in the API's order (newest first) across both pages, and the button gone once all are shown.
    const ids = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-run-id'))));
    expect(ids.slice(0, 200)).toEqual(before);
    expect(ids).toEqual(all.runs.map((r) => r.id));
    expect(new Set(ids)).toEqual(new Set(busyRunIds));
    expect(ids).not.toContain(added);
    expect(await page.getByRole('button', { name: /^Older runs/ }).count()).toBe(0);
    expect(await page.locator('table.runs caption').textContent()).not.toContain('shown');
    await store.statement<[number]>('DELETE FROM runs WHERE id = ?').run(added);
    busyRunIds = busyRunIds.filter((id) => !pruned.includes(id));
    // A filter starts again from the first page: failures only (5 of them) fit in one.
    await page.getByLabel('Outcome').selectOption('failure');
    await expect.poll(() => rows.count()).toBe(busyRunIds.filter((_, i) => i % 50 === 7).length);
  });

  it("says in serve mode that no scheduler runs the agent's drivers", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/#/agent/${agentId}`);
    await page.getByRole('link', { name: 'Schedule' }).click();
    await page.getByRole('heading', { level: 1, name: 'Schedule of lab agent' }).waitFor();
    const notice = page.locator('[data-scheduler="none"]');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('No scheduler runs this agent');
  });

  it("shows a real agent's schedule: next due, last run, skipped due times", async () => {
    const { page } = browser;
    // `driverbox agent`: its own store, a thermometer every 2 s and a device answering in 2.5 s every 1 s (overlaps).
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-console-agent-'));
    writeFileSync(path.join(dir, 'thermometer.js'), THERMOMETER);
    writeFileSync(path.join(dir, 'slow.js'), SLOW);
    const inventory = [
      'version: 1',
      'devices:',
      `  - { name: thermometer, ip: ${sim.device.ip}, portMap: { 80: ${sim.portMap[80]} } }`,
      `  - { name: slow-box, ip: 127.0.0.1, portMap: { 80: ${slowDevice.port} } }`,
      'drivers:',
      "  - { name: thermometer, path: thermometer.js, samplePeriod: 2, parameters: { site: { type: string, default: 'rack 1' } } }",
      '  - { name: slow, path: slow.js, samplePeriod: 1 }',
      'associations:',
      '  - { driver: thermometer, device: thermometer }',
      '  - { driver: slow, device: slow-box }',
    ];
    writeFileSync(path.join(dir, 'inventory.yaml'), `${inventory.join('\n')}\n`);
    agentStore = await openTestStore({ secretKey: 'agent-secret' });
    agent = createAgent({ store: agentStore, inventory: path.join(dir, 'inventory.yaml'), scheduler: { jitterMs: 200 }, storeRefreshMs: 0, api: { apiKeys: [KEY] } });
    const skipped: AgentRunSkipped[] = [];
    agent.on('runSkipped', (e) => skipped.push(e));
    agent.on('error', () => undefined);
    await agent.start();

    await page.goto(`${agent.url}/#/agent/${agent.agentId}/schedule`);
    await page.getByLabel('API key').fill(KEY);
    await page.getByLabel('API key').press('Enter');
    await page.getByRole('heading', { level: 1, name: /^Schedule of / }).waitFor();
    const rows = page.locator('table.schedule tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const thermometer = page.locator('table.schedule tr', { hasText: 'thermometer@thermometer' });
    const slow = page.locator('table.schedule tr', { hasText: 'slow@slow-box' });
    expect(await thermometer.locator('th .path').textContent()).toMatch(/thermometer · every 2 s · get_status/);
    // Its last run comes (the page re-reads every 5 s), a success linked to its record.
    await expect.poll(() => thermometer.locator('.last-run').textContent(), { timeout: 15_000 }).toMatch(/success.*get_status/);
    expect(await thermometer.locator('.next-due').textContent()).toMatch(/^\d\d:\d\d:\d\d(in \d+ s|now|\d+ s overdue)/);
    // The slow device's due times that came while its run was still going are counted as skipped.
    await expect.poll(() => slow.locator('.skipped').textContent(), { timeout: 15_000 }).toMatch(/^[1-9]\d* *\d+ still running/);
    expect(skipped.some((e) => e.reason === 'running')).toBe(true);
    await shoot('schedule-laptop');
    await thermometer.locator('.last-run a').click();
    await page.getByRole('heading', { level: 2, name: 'HTTP exchanges (1)' }).waitFor();
    expect(await page.locator('.facts').textContent()).toContain('success');
    await page.goto(`${server.url}/#/`);
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
  });

  it('lists the driver library with parameters and associations, without loading the editor', async () => {
    const { page } = browser;
    // Every page so far came without the editor's chunk.
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((s) => s.includes('code-editor'))).toEqual([]);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Drivers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Drivers' }).waitFor();
    const row = page.locator(`table.drivers tr[data-driver-id="${driverId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('valid');
    expect(await row.locator('.chip').allTextContents()).toEqual(['site']);
    await shoot('drivers-laptop');
    await row.getByRole('link', { name: 'Thermometer' }).click();
    await page.getByRole('heading', { level: 1, name: 'Thermometer' }).waitFor();
    expect(await page.locator('table.parameters tbody').textContent()).toMatch(/site.*STRING.*bench.*Where the probe is/);
    const association = page.locator('table.associations tbody tr');
    await expect.poll(() => association.count()).toBe(1);
    expect(await association.textContent()).toMatch(/thermometer.*bench agent.*600 s.*site = lab 2/);
    await shoot('driver-laptop');
    expect(scripts.filter((s) => s.includes('code-editor'))).toEqual([]);
  });

  it('edits the driver with completion of D, runs it against the device and shows its variables, table, log and exchange', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Edit and run on thermometer' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit Thermometer' }).waitFor();
    const editor = page.getByRole('textbox', { name: 'Driver code' });
    await page.locator('.code-host[data-ready="true"]').waitFor();
    // The editor came in its own chunk, fetched now.
    expect(scripts.filter((s) => s.includes('code-editor'))).toHaveLength(1);
    expect(await editor.textContent()).toContain("D.device.http.get({ url: '/reading' }");
    // The association's agent and device are chosen.
    expect(await page.getByLabel('Device', { exact: true }).inputValue()).toBe(String(thermometerId));

    // Completion of D's members, from types/driver.d.ts.
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('D.device.ht');
    const options = page.locator('.cm-tooltip-autocomplete li');
    await expect.poll(() => options.allTextContents()).toEqual([expect.stringMatching(/^http/)]);
    for (let i = 0; i < 'D.device.ht'.length; i++) await page.keyboard.press('Backspace');
    await page.keyboard.type('D.errorType.AUTH');
    await expect.poll(() => options.first().textContent()).toMatch(/^AUTHENTICATION_ERROR/);
    await page.keyboard.press('Escape');
    for (let i = 0; i < 'D.errorType.AUTH'.length; i++) await page.keyboard.press('Backspace');

    // The edit: all of it replaced with one more variable.
    await pasteCode(page, EDITED);
    expect(await page.locator('.meta .badge').textContent()).toBe('unsaved changes');
    await page.keyboard.press('Control+Enter');
    const result = page.locator('.trial-result[data-outcome="success"]');
    await result.waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'The run ended' }).textContent()).toContain('success');
    expect(await result.locator('table.trial-variables tbody tr').allTextContents()).toEqual([
      expect.stringMatching(/Temperature.*temperature.*21\.5 C/),
      expect.stringMatching(/Mode.*mode.*eco/),
    ]);
    expect(await result.locator('table.driver-table tbody tr').textContent()).toMatch(/probe-1.*21\.5/);
    expect(await result.locator('ol.log li').allTextContents()).toEqual([expect.stringMatching(/info.*read 21\.5 at lab 2/)]);
    const exchange = result.locator('table.exchanges tbody tr');
    expect(await exchange.locator('th').textContent()).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/reading/);
    expect(await exchange.locator('td').nth(1).textContent()).toBe('200');
    await exchange.getByText('Headers and bodies').click();
    expect(await exchange.locator('pre.code').last().textContent()).toContain('"mode":"eco"');
    await shoot('editor-laptop');

    // Nothing of the trial run was stored.
    const stored = await fetch(`${server.url}/public-api/v1/agent/${benchAgentId}/device/${thermometerId}/variable`, { headers: { 'x-api-key': KEY } });
    expect(await stored.json()).toEqual([]);
  });

  it('saves the edit as a new version of the driver', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await expect.poll(() => page.locator('.notice-ok').textContent()).toContain('Saved as version 2');
    expect(await page.getByRole('button', { name: 'Save as a new version' }).isDisabled()).toBe(true);
    expect((await getCustomDriver(store, driverId))!).toMatchObject({ version: 2, source: EDITED, isValid: true });
    // A failing run is shown as one: a driver that throws.
    await pasteCode(page, 'function validate() { D.success(); }\nfunction get_status() { D.success([D.createVariable("x", "X", notDefined)]); }\n');
    await page.getByRole('button', { name: 'Run' }).click();
    const failed = page.locator('.trial-result[data-outcome="failure"]');
    await failed.waitFor();
    expect(await failed.locator('.facts').textContent()).toContain('notDefined');
  });

  it('runs a driver against a simulated device driverbox ships', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/#/driver/${upsDriverId}/edit`);
    await page.getByRole('heading', { level: 1, name: 'Edit UPS status' }).waitFor();
    await page.locator('.code-host[data-ready="true"]').waitFor();
    await page.getByLabel('Agent').selectOption({ label: 'Simulated devices' });
    await expect.poll(() => page.url()).toContain('simulated=');
    await page.getByLabel('Device', { exact: true }).selectOption({ label: 'ups-status (http)' });
    await expect.poll(() => page.url()).toContain('simulated=ups-status');
    expect(await page.locator('.simulated-about').textContent()).toContain('A UPS network card');
    await page.getByRole('button', { name: 'Run' }).click();
    const result = page.locator('.trial-result[data-outcome="success"]');
    await result.waitFor();
    expect(await result.locator('table.trial-variables tbody tr').count()).toBe(6);
    expect(await result.locator('table.trial-variables').textContent()).toMatch(/Battery charge.*battery.*\d+ %/);
    expect(await result.locator('table.exchanges tbody tr th').first().textContent()).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/status\.html/);
    // The fixture's password is masked as a stored device's would be.
    expect(await result.textContent()).not.toContain('ups-secret');
    await shoot('editor-simulated-laptop');
  });

  it('runs a driver against a simulated device served over HTTPS, its certificate trusted for that run', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/#/driver/${cloudDriverId}/edit?simulated=cloud-energy`);
    await page.getByRole('heading', { level: 1, name: 'Edit Cloud energy' }).waitFor();
    await page.locator('.code-host[data-ready="true"]').waitFor();
    expect(await page.locator('.simulated-about').textContent()).toContain("vendor's cloud");
    await page.getByRole('button', { name: 'Run' }).click();
    const result = page.locator('.trial-result[data-outcome="success"]');
    await result.waitFor();
    expect(await result.locator('table.trial-variables tbody tr').count()).toBe(4);
    expect(await result.locator('table.trial-variables').textContent()).toMatch(/Current power.*power.*3650/);
    expect(await result.locator('table.exchanges tbody tr th').first().textContent()).toMatch(/^GET https:\/\/api\.solar-cloud\.example:\d+\/v1\/sites\/4711\/overview/);
  });

  it('shows the editor at a phone width without sideways scrolling', async () => {
    const { page } = browser;
    await page.setViewportSize(PHONE);
    // The saved version opens (the unsaved failing edit is gone).
    await page.goto(`${server.url}/#/drivers`);
    await page.getByRole('heading', { level: 1, name: 'Drivers' }).waitFor();
    await page.goto(`${server.url}/#/driver/${driverId}/edit?agent=${benchAgentId}&device=${thermometerId}`);
    await page.locator('.code-host[data-ready="true"]').waitFor();
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('.trial-result[data-outcome="success"]').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shoot('editor-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('fits a phone (390 × 844) on every main page without sideways scrolling', async () => {
    const { page } = browser;
    await page.setViewportSize(PHONE);
    const pages: Array<[string, string, () => Promise<unknown>]> = [
      ['agents', '#/', () => page.locator('.cards .card').first().waitFor()],
      ['agent', `#/agent/${agentId}`, () => page.locator('table.list tbody tr').first().waitFor()],
      ['device', `#/agent/${agentId}/device/${deviceId}/variable/${loadId}`, () => page.locator(`figure.chart[data-points="${IN_24H}"] canvas`).waitFor()],
      ['runs', `#/agent/${benchAgentId}/runs`, () => page.locator('table.runs tbody tr').first().waitFor()],
      ['run', `#/agent/${agentId}/runs`, async () => {
        await page.locator('table.runs tbody tr a').first().click();
        await page.locator('table.exchanges').waitFor();
      }],
      ['schedule', `#/agent/${agentId}/schedule`, () => page.locator('[data-scheduler="none"]').waitFor()],
      ['drivers', '#/drivers', () => page.locator('table.drivers tbody tr').first().waitFor()],
      ['driver', `#/driver/${driverId}`, () => page.locator('table.associations tbody tr').first().waitFor()],
    ];
    for (const [name, hash, ready] of pages) {
      await page.goto(`${server.url}/${hash}`);
      await ready();
      expect({ name, width: await page.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ name, width: PHONE.width });
    }
    await page.goto(`${server.url}/#/agent/${agentId}/device/${deviceId}/variable/${loadId}`);
    const chart = page.locator(`figure.chart[data-points="${IN_24H}"]`);
    await chart.locator('canvas').waitFor();
    const width = (await chart.locator('canvas').boundingBox())!.width;
    expect(width).toBeLessThanOrEqual(PHONE.width);
    await shoot('device-chart-phone');
    // Signing out forgets the key.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await shoot('login-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('logged no console error and no page error', () => {
    expect(browser.errors).toEqual([]);
  });
});
