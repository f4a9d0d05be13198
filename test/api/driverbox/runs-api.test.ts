// The driverbox extension API's runs (/driverbox-api/v1, host/api/driverbox/): behind the key,
// filtered, failures first on request, one run with its log and HTTP exchanges, another agent's
// run not found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { driverboxApiRoutes, type DeviceTable, type RunDetail, type RunListAnswer } from '../../../host/api/driverbox/runs-routes.js';
import { createMonitoringApi } from '../../../host/api/monitoring/server.js';
import type { HttpExchange } from '../../../host/contract/run-result.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { writeRunResult } from '../../../host/store/runs/report-run.js';
import type { Store } from '../../../host/store/store.js';
import { failure, success, variable } from '../../helpers/run-results.js';
import { openTestStore } from '../../helpers/store.js';

const KEY = 'runs-api-key-1';
const clock = { now: Date.UTC(2026, 0, 15, 12, 0, 0) };
let store: Store;
let app: FastifyInstance;
let agentId: number;
let otherAgentId: number;
let nasId: number;
let cameraId: number;
const runIds: number[] = [];
let otherRunId: number;
let otherDeviceId: number;

const exchange: HttpExchange = {
  method: 'GET',
  url: 'http://10.0.0.7/api/status',
  status: 200,
  error: null,
  errorMessage: null,
  startedMs: 3,
  headersMs: 12,
  durationMs: 15,
  requestBytes: 0,
  responseBytes: 420,
  redirectedTo: null,
};

const get = async <T>(url: string, key: string | null = KEY) => {
  const response = await app.inject({ method: 'GET', url, headers: key ? { 'x-api-key': key } : {} });
  return { status: response.statusCode, body: response.json() as T };
};

beforeAll(async () => {
  store = await openTestStore({ secretKey: 'test-secret', clock: () => clock.now });
  agentId = (await createAgentRecord(store, { displayName: 'lab' })).id;
  otherAgentId = (await createAgentRecord(store, { displayName: 'other' })).id;
  nasId = (await createDevice(store, agentId, { displayName: 'nas', ip: '10.0.0.7' })).id;
  cameraId = (await createDevice(store, agentId, { displayName: 'camera', ip: '10.0.0.8' })).id;
  const otherDevice = (otherDeviceId = (await createDevice(store, otherAgentId, { displayName: 'x', ip: '10.0.0.9' })).id);
  const write = async (deviceId: number, driverName: string, result: Parameters<typeof writeRunResult>[2]) => {
    clock.now += 60_000;
    return (await writeRunResult(store, { agentId, deviceId, driverName }, result)).runId;
  };
  runIds.push(await write(nasId, 'nas.js', success([variable('cpu', '12')], { http: [exchange], logs: [{ level: 'info', message: 'logged in' }] })));
  runIds.push(await write(nasId, 'nas.js', failure('AUTHENTICATION_ERROR', 'wrong password', { http: [{ ...exchange, status: 401 }], logs: [{ level: 'error', message: 'login refused' }] })));
  runIds.push(await write(cameraId, 'camera.js', success([variable('fps', '25')])));
  clock.now += 60_000;
  otherRunId = (await writeRunResult(store, { agentId: otherAgentId, deviceId: otherDevice, driverName: 'x.js' }, success([]))).runId;
  app = await createMonitoringApi({ store, apiKeys: [KEY], extraRoutes: async (root) => void (await root.register(driverboxApiRoutes, { store, apiKeys: [KEY] })) });
});

afterAll(async () => {
  await app?.close();
  await store?.close();
});

describe('driverbox extension API: runs', () => {
  it('needs the key, with the Public API error body', async () => {
    const refused = await get<{ status: number; code: string }>(`/driverbox-api/v1/agent/${agentId}/run`, null);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect((await get(`/driverbox-api/v1/agent/${agentId}/run`, 'wrong-key-000')).status).toBe(401);
    expect((await get('/driverbox-api/v1/nothing', null)).status).toBe(401);
    expect((await get('/driverbox-api/v1/nothing')).status).toBe(404);
  });

  it('lists an agent\'s runs newest first, or failures first, filtered by device, driver, outcome', async () => {
    const all = await get<RunListAnswer>(`/driverbox-api/v1/agent/${agentId}/run`);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.runs.map((r) => r.id)).toEqual([...runIds].reverse());
    expect(all.body.drivers).toEqual(['camera.js', 'nas.js']);
    const first = all.body.runs[2]!;
    expect(first).toMatchObject({ device_id: nasId, driver: 'nas.js', action: 'get_status', outcome: 'success', elapsed_ms: 25, variable_count: 1, http_count: 1, log_count: 1 });
    expect(first.started).toMatch(/^2026-01-15T12:0\d:\d\d$/);

    const failuresFirst = await get<RunListAnswer>(`/driverbox-api/v1/agent/${agentId}/run?order=failures_first`);
    expect(failuresFirst.body.runs.map((r) => r.outcome)).toEqual(['failure', 'success', 'success']);
    expect(failuresFirst.body.runs[0]).toMatchObject({ error_type: 'AUTHENTICATION_ERROR', error_message: 'wrong password' });

    expect((await get<RunListAnswer>(`/driverbox-api/v1/agent/${agentId}/run?device_id=${cameraId}`)).body.runs.map((r) => r.id)).toEqual([runIds[2]]);
    expect((await get<RunListAnswer>(`/driverbox-api/v1/agent/${agentId}/run?driver=nas.js&outcome=success`)).body.runs.map((r) => r.id)).toEqual([runIds[0]]);
    const paged = await get<RunListAnswer>(`/driverbox-api/v1/agent/${agentId}/run?page_size=2&page_number=1`);
    expect(paged.body).toMatchObject({ total: 3 });
    expect(paged.body.runs.map((r) => r.id)).toEqual([runIds[0]]);
    expect((await get(`/driverbox-api/v1/agent/${agentId}/run?outcome=maybe`)).status).toBe(422);
    expect((await get('/driverbox-api/v1/agent/999/run')).status).toBe(404);
  });

  it('pages by cursor: a run recorded or pruned between two page loads neither repeats nor skips one', async () => {
    const agent = (await createAgentRecord(store, { displayName: 'paged' })).id;
    const device = (await createDevice(store, agent, { displayName: 'busy', ip: '10.0.0.20' })).id;
    const record = async (fails: boolean) => {
      clock.now += 1000;
      return (await writeRunResult(store, { agentId: agent, deviceId: device, driverName: 'busy.js' }, fails ? failure('RESOURCE_UNAVAILABLE', 'down') : success([]))).runId;
    };
    for (let i = 0; i < 8; i++) await record(i % 3 === 1);
    const url = (query: string, size = 3) => `/driverbox-api/v1/agent/${agent}/run?page_size=${size}&${query}`;
    for (const order of ['newest', 'failures_first'] as const) {
      const expected = (await get<RunListAnswer>(url(`order=${order}`, 500))).body.runs.map((r) => r.id);
      const first = (await get<RunListAnswer>(url(`order=${order}`))).body;
      expect(first.runs.map((r) => r.id)).toEqual(expected.slice(0, 3));
      // Meanwhile: a new success and a new failure are recorded (both sort before the page loaded),
      // and one run of that page is pruned.
      const added = [await record(false), await record(true)];
      await store.statement<[number]>('DELETE FROM runs WHERE id = ?').run(first.runs[1]!.id);
      // Offset paging now goes wrong: a run of the first page again, or one recorded since.
      const byOffset = (await get<RunListAnswer>(url(`order=${order}&page_number=1`))).body.runs.map((r) => r.id);
      expect([...first.runs.map((r) => r.id), ...byOffset]).not.toEqual(expected.slice(0, 6));
      const listed = first.runs.map((r) => r.id);
      let cursor = first.next_cursor;
      while (cursor !== null) {
        const next = await get<RunListAnswer>(url(`order=${order}&cursor=${encodeURIComponent(cursor)}`));
        expect(next.status).toBe(200);
        listed.push(...next.body.runs.map((r) => r.id));
        cursor = next.body.next_cursor;
      }
      // After the first page: the list as it is now from right after that page's last run, each
      // run once (newest first, the new runs are above it; failures first, the new success is below).
      const now = (await get<RunListAnswer>(url(`order=${order}`, 500))).body.runs.map((r) => r.id);
      expect(listed).toEqual([...first.runs.map((r) => r.id), ...now.slice(now.indexOf(first.runs[2]!.id) + 1)]);
      expect(new Set(listed).size).toBe(listed.length);
      // Nothing that was there at the first load is skipped, but the pruned run.
      expect(expected.filter((id) => id !== first.runs[1]!.id).every((id) => listed.includes(id))).toBe(true);
      expect(listed.filter((id) => added.includes(id))).toEqual(order === 'newest' ? [] : [added[0]]);
      // The next load from the top starts with what was added (failures first: the new failure).
      const top = (await get<RunListAnswer>(url(`order=${order}`))).body.runs.map((r) => r.id);
      expect(order === 'newest' ? top.slice(0, 2) : top.slice(0, 1)).toEqual(order === 'newest' ? [added[1], added[0]] : [added[1]]);
    }
    // A cursor of the other order, one that is not a cursor, and a cursor with a page number are refused.
    const newest = (await get<RunListAnswer>(url('order=newest'))).body.next_cursor!;
    expect(newest).toMatch(/^n\./);
    const refused = await get<{ message: string }>(url(`order=failures_first&cursor=${newest}`));
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('order=newest');
    expect((await get(url('cursor=12'))).status).toBe(422);
    expect((await get(url(`cursor=${newest}&page_number=1`))).status).toBe(422);
  });

  it('answers one run with its log, warnings and HTTP exchanges; not another agent\'s', async () => {
    const run = await get<RunDetail>(`/driverbox-api/v1/agent/${agentId}/run/${runIds[1]}`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ id: runIds[1], outcome: 'failure', log: [{ level: 'error', message: 'login refused' }], warnings: [] });
    expect(run.body.http).toEqual([{ ...exchange, status: 401 }]);
    expect((await get(`/driverbox-api/v1/agent/${agentId}/run/${otherRunId}`)).status).toBe(404);
    expect((await get(`/driverbox-api/v1/agent/${agentId}/run/123456`)).status).toBe(404);
  });

  it("answers a device's tables, each the latest its driver reported; another agent's device is not found", async () => {
    const columns = [{ label: 'Used', unit: '%', valueType: 'NUMBER' as const }];
    const tableRun = (rows: Array<Array<string | null>>) => success([], { tables: [{ label: 'Volumes', columnHeaders: columns, rows }] });
    expect((await get<{ tables: DeviceTable[] }>(`/driverbox-api/v1/agent/${agentId}/device/${nasId}/table`)).body).toEqual({ tables: [] });
    clock.now += 60_000;
    await writeRunResult(store, { agentId, deviceId: nasId, driverName: 'nas.js' }, tableRun([['vol1', '40'], ['vol2', '75']]));
    clock.now += 60_000;
    // The next run's table replaces it.
    await writeRunResult(store, { agentId, deviceId: nasId, driverName: 'nas.js' }, tableRun([['vol1', '41'], ['vol2', '76'], ['vol3', null]]));
    const tables = await get<{ tables: DeviceTable[] }>(`/driverbox-api/v1/agent/${agentId}/device/${nasId}/table`);
    expect(tables.status).toBe(200);
    expect(tables.body.tables).toEqual([
      { id: expect.any(Number), association_id: null, label: 'Volumes', columns, rows: [['vol1', '41'], ['vol2', '76'], ['vol3', null]], updated: new Date(clock.now).toISOString().slice(0, 19) },
    ]);
    expect((await get<{ tables: DeviceTable[] }>(`/driverbox-api/v1/agent/${agentId}/device/${cameraId}/table`)).body.tables).toEqual([]);
    expect((await get(`/driverbox-api/v1/agent/${agentId}/device/${otherDeviceId}/table`)).status).toBe(404);
    expect((await get(`/driverbox-api/v1/agent/${agentId}/device/${nasId}/table`, null)).status).toBe(401);
  });
});
