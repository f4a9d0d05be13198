// The hot read routes (G8, SCALE-OUT.md): listDeviceVariables, listAgentDeviceVariables and
// getVariableHistory check the agent, device and variable inside their one query, and look for
// the reason for a 404 / 403 only when it answers nothing; their answers and error bodies are
// those of checking first.
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { MonitoringApiError } from '../../../host/api/monitoring/client/index.js';
import { createAgentRecord, setAgentAccess } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { writeRunResult } from '../../../host/store/runs/report-run.js';
import { setAgentVariable } from '../../../host/store/results/variables.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';
import { success, variable } from '../../helpers/run-results.js';

const { client, store, clock } = await startMonitoringFixture();
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);

const site = await createAgentRecord(store, { displayName: 'site' });
const nas = await createDevice(store, site.id, { displayName: 'nas', ip: '10.0.0.7' });
const bare = await createDevice(store, site.id, { displayName: 'bare', ip: '10.0.0.8' });
await writeRunResult(store, { agentId: site.id, deviceId: nas.id }, success([variable('cpu', '5'), variable('mem', '7')]));
clock.now += 60_000;
await writeRunResult(store, { agentId: site.id, deviceId: nas.id }, success([variable('cpu', '6'), variable('mem', '7')]));
const other = await createAgentRecord(store, { displayName: 'other' });
const router = await createDevice(store, other.id, { displayName: 'router', ip: '10.1.0.1' });
await writeRunResult(store, { agentId: other.id, deviceId: router.id }, success([variable('uptime', '100')]));
// An agent whose plan gives no API access, with data: its reads must answer 403, not the data.
const shut = await createAgentRecord(store, { displayName: 'shut' });
const shutDevice = await createDevice(store, shut.id, { displayName: 'cam', ip: '10.2.0.1' });
await writeRunResult(store, { agentId: shut.id, deviceId: shutDevice.id }, success([variable('fps', '25')]));
const shutAgentVariable = await setAgentVariable(store, shut.id, { path: 'agent.cpu', value: '1' });
await setAgentAccess(store, shut.id, { apiEnabled: false });

const cpu = (await client.listDeviceVariables(site.id, nas.id, { path: 'cpu' }))[0]!;
const uptime = (await client.listDeviceVariables(other.id, router.id))[0]!;
const fps = (await store.statement<[number], { id: number }>('SELECT id FROM variables WHERE device_id = ?').get(shutDevice.id))!.id;

async function failure(promise: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  return { status: error.status, body: error.body };
}

describe('statements per read request', () => {
  let statements: MockInstance<typeof store.statement>;
  beforeEach(() => {
    statements = vi.spyOn(store, 'statement');
  });
  afterEach(() => statements.mockRestore());
  const made = () => statements.mock.calls.map(([sql]) => sql).filter((sql) => !sql.includes('api_usage'));

  it('one statement when the answer has rows, usage counting included', async () => {
    expect((await client.listDeviceVariables(site.id, nas.id)).map((v) => v.path)).toEqual(['cpu', 'mem']);
    expect(made()).toHaveLength(1);
    statements.mockClear();
    expect((await client.listAgentDeviceVariables(site.id)).map((v) => v.path)).toEqual(['cpu', 'mem']);
    expect(made()).toHaveLength(1);
    statements.mockClear();
    expect((await client.getVariableHistory(site.id, nas.id, cpu.id)).map((s) => s.value)).toEqual(['5', '6']);
    expect(made()).toHaveLength(1);
    // No usage write per request either (counted in memory, written about once a second).
    expect(statements.mock.calls.length).toBeLessThanOrEqual(3 + 2);
  });

  it('an empty answer looks for the reason, and is still an empty answer when there is none', async () => {
    expect(await client.listDeviceVariables(site.id, bare.id)).toEqual([]);
    expect(made().length).toBeGreaterThan(1);
    expect(await client.listAgentDeviceVariables(site.id, { page_number: 5 })).toEqual([]);
    expect(await client.getVariableHistory(site.id, nas.id, cpu.id, { to: iso(clock.now - 7 * 24 * 3600_000 - 120_000) })).toEqual([]);
  });
});

describe('the answers of checking first', () => {
  it('403 for an agent without API access, though its query would find rows', async () => {
    const denied = { status: 403, body: expect.objectContaining({ status: 403, code: 'API_ACCESS_DISABLED' }) };
    expect(await failure(client.listDeviceVariables(shut.id, shutDevice.id))).toEqual(denied);
    expect(await failure(client.listAgentDeviceVariables(shut.id))).toEqual(denied);
    expect(await failure(client.listAgentVariables(shut.id))).toEqual(denied);
    expect(await failure(client.getVariableHistory(shut.id, shutDevice.id, fps))).toEqual(denied);
    expect(await failure(client.getAgentVariableHistory(shut.id, shutAgentVariable.id))).toEqual(denied);
  });

  it('404 naming the agent, device or variable, as before', async () => {
    const notFound = (message: string) => ({ status: 404, body: expect.objectContaining({ status: 404, code: 'NOT_FOUND', message }) });
    expect(await failure(client.listDeviceVariables(9999, nas.id))).toEqual(notFound('agent 9999 not found'));
    expect(await failure(client.listDeviceVariables(site.id, router.id))).toEqual(notFound(`device ${router.id} not found`));
    expect(await failure(client.listAgentDeviceVariables(9999))).toEqual(notFound('agent 9999 not found'));
    // Another agent's variable, asked through this agent's device, and through its own agent with the wrong device.
    expect(await failure(client.getVariableHistory(site.id, nas.id, uptime.id))).toEqual(notFound(`variable ${uptime.id} not found`));
    expect(await failure(client.getVariableHistory(other.id, nas.id, cpu.id))).toEqual(notFound(`device ${nas.id} not found`));
    expect(await failure(client.getVariableHistory(site.id, bare.id, cpu.id))).toEqual(notFound(`variable ${cpu.id} not found`));
  });

  it('an unknown agent with a refused time window is still a 404; a known one gets the 422', async () => {
    const backwards = { from: iso(clock.now), to: iso(clock.now - 3600_000) };
    expect((await failure(client.getVariableHistory(9999, nas.id, cpu.id, backwards))).status).toBe(404);
    expect((await failure(client.getVariableHistory(site.id, nas.id, 999_999, backwards))).status).toBe(404);
    expect((await failure(client.getVariableHistory(site.id, nas.id, cpu.id, backwards))).status).toBe(422);
  });
});
