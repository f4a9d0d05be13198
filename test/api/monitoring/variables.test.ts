// The variables operations through MonitoringClient: device variables written by reported
// runs, the agent's own variables, filters, sorting, paging, counts and histories.
import { describe, expect, it } from 'vitest';
import {
  MonitoringApiError,
  MonitoringAuthError,
  MonitoringClient,
  MonitoringNotFoundError,
  MonitoringValidationError,
  listAll,
} from '../../../host/api/monitoring/client/index.js';
import type { Variable, VariableListQuery } from '../../../host/api/monitoring/schemas/variables.js';
import { createAgentRecord, ensureLocalAgent } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { writeRunResult } from '../../../host/store/runs/report-run.js';
import { setAgentVariable } from '../../../host/store/results/variables.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';
import { success, variable } from '../../helpers/run-results.js';

const api = await startMonitoringFixture();
const { client, store, clock } = api;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);

// Day 0: an early run on the NAS; 8 days later two more runs a minute apart.
const start = clock.now;
const agent = await ensureLocalAgent(store);
const nas = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.7' });
const ups = await createDevice(store, agent.id, { displayName: 'ups', ip: '10.0.0.9' });
const other = await createAgentRecord(store, { displayName: 'elsewhere' });
const otherDevice = await createDevice(store, other.id, { displayName: 'router', ip: '10.1.0.1' });
const closed = await createAgentRecord(store, { displayName: 'no api', apiEnabled: false });

const nasTarget = { agentId: agent.id, deviceId: nas.id, driverName: 'nas.js' };
const early = start;
await writeRunResult(store, nasTarget, success([variable('cpu', '5', { unit: '%', valueType: 'NUMBER' }), variable('name', 'nas-1')]));
clock.now = start + 8 * DAY;
const first = clock.now;
await writeRunResult(
  store,
  nasTarget,
  success([
    variable('cpu', '10', { unit: '%', valueType: 'NUMBER', label: 'CPU load' }),
    variable('memory', '20', { unit: '%', valueType: 'NUMBER', label: 'Memory' }),
    variable('name', 'nas-1', { label: 'Name' }),
    variable('temp', '120', { unit: 'C', valueType: 'NUMBER', label: 'Disk temperature' }),
  ]),
);
clock.now += MINUTE;
const second = clock.now;
await writeRunResult(
  store,
  nasTarget,
  success([
    variable('cpu', '15', { unit: '%', valueType: 'NUMBER', label: 'CPU load' }),
    variable('memory', '20', { unit: '%', valueType: 'NUMBER', label: 'Memory' }),
    variable('name', 'nas-1', { label: 'Name' }),
    variable('temp', '20', { unit: 'C', valueType: 'NUMBER', label: 'Disk temperature' }),
  ]),
);
await writeRunResult(store, { agentId: agent.id, deviceId: ups.id }, success([variable('battery', '97', { unit: '%' }), variable('load', '20', { unit: '%' })]));
await writeRunResult(store, { agentId: other.id, deviceId: otherDevice.id }, success([variable('uptime', '100')]));
clock.now += MINUTE;
const now = clock.now;

// The agent's own figures, as agent mode reports them.
const agentCpu = await setAgentVariable(store, agent.id, { path: 'agent.cpu', label: 'Agent CPU', unit: '%', value: '3', metric: 'cpu_usage' });
clock.now += MINUTE;
await setAgentVariable(store, agent.id, { path: 'agent.cpu', label: 'Agent CPU', unit: '%', value: '4', metric: 'cpu_usage' });
const agentVersion = await setAgentVariable(store, agent.id, { path: 'agent.version', label: 'Version', value: '1.2.3', metric: null, hasHistory: false });
await setAgentVariable(store, agent.id, { path: 'agent.memory', label: 'Agent memory', unit: 'MB', value: '20', metric: 'memory_usage' });
const agentNow = clock.now;

const byPath = (list: Variable[]) => Object.fromEntries(list.map((v) => [v.path, v]));

describe('listDeviceVariables', () => {
  it('answers each variable with its id, value, previous value, unit, label and times; ids are stable across runs', async () => {
    const list = await client.listDeviceVariables(agent.id, nas.id);
    expect(list.map((v) => v.path)).toEqual(['cpu', 'name', 'memory', 'temp']); // default: by id, the order first seen
    const vars = byPath(list);
    expect(vars.cpu).toEqual({
      id: vars.cpu!.id,
      path: 'cpu',
      label: 'CPU load',
      unit: '%',
      value: '15',
      previous_value: '10',
      has_history: true,
      creation_time: iso(early),
      value_update_time: iso(second),
    });
    // Created in the second run: no previous value there, the first run's value now.
    expect(vars.memory).toMatchObject({ value: '20', previous_value: '20', creation_time: iso(first), value_update_time: iso(second) });
    expect(vars.name).toMatchObject({ value: 'nas-1', previous_value: 'nas-1' });
    expect(vars.name).not.toHaveProperty('unit'); // unknown: left out (reference 1.14.0)
    expect(vars.temp).toMatchObject({ value: '20', previous_value: '120' });
  });

  it('filters by exact value, path, has_history and metric; counts equal the lists', async () => {
    const cases: Array<[Record<string, string | boolean>, string[]]> = [
      [{}, ['cpu', 'name', 'memory', 'temp']],
      [{ value: '20' }, ['memory', 'temp']],
      [{ value: '2' }, []], // exact, not contains
      [{ path: 'cpu' }, ['cpu']],
      [{ path: 'CPU' }, []], // case-sensitive
      [{ path: 'cp' }, []],
      [{ has_history: true }, ['cpu', 'name', 'memory', 'temp']],
      [{ has_history: false }, []],
      [{ metric: 'cpu_usage' }, []], // driver variables have no metric
      [{ value: '20', path: 'temp' }, ['temp']],
    ];
    for (const [query, paths] of cases) {
      const list = await client.listDeviceVariables(agent.id, nas.id, query);
      expect(list.map((v) => v.path), JSON.stringify(query)).toEqual(paths);
      expect(await client.countDeviceVariables(agent.id, nas.id, query), JSON.stringify(query)).toBe(paths.length);
    }
  });

  it('sorts by every sort_by field, ascending and descending', async () => {
    const order = async (sort_by: string, sorting_direction?: 'asc' | 'desc') =>
      (await client.listDeviceVariables(agent.id, nas.id, { sort_by: sort_by as 'path', sorting_direction })).map((v) => v.path);
    expect(await order('path')).toEqual(['cpu', 'memory', 'name', 'temp']);
    expect(await order('path', 'desc')).toEqual(['temp', 'name', 'memory', 'cpu']);
    expect(await order('label')).toEqual(['cpu', 'temp', 'memory', 'name']); // CPU load, Disk…, Memory, Name
    // Values compare as text; ties are ordered by id in the same direction.
    expect(await order('value')).toEqual(['cpu', 'memory', 'temp', 'name']); // '15' < '20' = '20' < 'nas-1'
    expect(await order('value', 'desc')).toEqual(['name', 'temp', 'memory', 'cpu']);
    expect(await order('creation_time')).toEqual(['cpu', 'name', 'memory', 'temp']);
    expect(await order('creation_time', 'desc')).toEqual(['temp', 'memory', 'name', 'cpu']);
    expect(await order('value_update_time')).toEqual(['cpu', 'name', 'memory', 'temp']);
    expect(await order('id', 'desc')).toEqual(['temp', 'memory', 'name', 'cpu']);
  });

  it('pages with page_size and page_number; a page past the end is empty', async () => {
    const pages = [];
    for (let page_number = 0; page_number < 3; page_number++) {
      pages.push((await client.listDeviceVariables(agent.id, nas.id, { sort_by: 'path', page_size: 3, page_number })).map((v) => v.path));
    }
    expect(pages).toEqual([['cpu', 'memory', 'name'], ['temp'], []]);
    expect((await client.listDeviceVariables(agent.id, nas.id, { page_size: 1 })).length).toBe(1);
    expect((await client.listDeviceVariables(agent.id, nas.id, { page_size: 1000 })).length).toBe(4);
    const all = await listAll((q: VariableListQuery) => client.listDeviceVariables(agent.id, nas.id, q), { sort_by: 'path' }, 1);
    expect(all.map((v) => v.path)).toEqual(['cpu', 'memory', 'name', 'temp']);
  });

  it('refuses a page_size under 1, a negative page_number, an unknown sort_by or direction, a non-boolean has_history', async () => {
    const refused = async (query: Record<string, unknown>, loc: string[]) => {
      const error = await client.listDeviceVariables(agent.id, nas.id, query as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(query)).toBeInstanceOf(MonitoringValidationError);
      expect((error as MonitoringValidationError).status).toBe(422);
      expect((error as MonitoringValidationError).detail.map((d) => d.loc)).toContainEqual(loc);
    };
    await refused({ page_size: 0 }, ['query', 'page_size']);
    expect(await client.listDeviceVariables(agent.id, nas.id, { page_size: 1001 })).toHaveLength(4); // clamped to 1000
    await refused({ page_number: -1 }, ['query', 'page_number']);
    await refused({ sort_by: 'device_id' }, ['query', 'sort_by']); // only the agent-wide list sorts by device
    await refused({ sort_by: 'unit' }, ['query', 'sort_by']);
    await refused({ sorting_direction: 'up' }, ['query', 'sorting_direction']);
    await refused({ has_history: 'maybe' }, ['query', 'has_history']);
    const count = await client.countDeviceVariables(agent.id, nas.id, { has_history: 'maybe' as never }).catch((e: unknown) => e);
    expect(count).toBeInstanceOf(MonitoringValidationError);
  });

  it('answers 404 for an unknown agent, an unknown device, or a device of another agent', async () => {
    for (const call of [
      () => client.listDeviceVariables(9999, nas.id),
      () => client.listDeviceVariables(agent.id, 9999),
      () => client.listDeviceVariables(agent.id, otherDevice.id),
      () => client.countDeviceVariables(agent.id, otherDevice.id),
      () => client.countDeviceVariables(9999, nas.id),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(MonitoringNotFoundError);
    }
    const error = (await client.listDeviceVariables(agent.id, 9999).catch((e: unknown) => e)) as MonitoringApiError;
    expect(error.body).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'device 9999 not found' });
  });
});

describe('listAgentDeviceVariables', () => {
  it("lists every device's variables of the agent (not other agents'), each with its device_id", async () => {
    const list = await client.listAgentDeviceVariables(agent.id, { sort_by: 'device_id' });
    expect(list.map((v) => [v.device_id, v.path])).toEqual([
      [nas.id, 'cpu'],
      [nas.id, 'name'],
      [nas.id, 'memory'],
      [nas.id, 'temp'],
      [ups.id, 'battery'],
      [ups.id, 'load'],
    ]);
    expect((await client.listAgentDeviceVariables(agent.id, { sort_by: 'device_id', sorting_direction: 'desc' }))[0]).toMatchObject({ device_id: ups.id, path: 'load' });
    expect(await client.countAgentDeviceVariables(agent.id)).toBe(6);
    expect((await client.listAgentDeviceVariables(other.id)).map((v) => v.path)).toEqual(['uptime']);
  });

  it('filters and counts across devices', async () => {
    const twenty = await client.listAgentDeviceVariables(agent.id, { value: '20', sort_by: 'path' });
    expect(twenty.map((v) => [v.device_id, v.path])).toEqual([
      [ups.id, 'load'],
      [nas.id, 'memory'],
      [nas.id, 'temp'],
    ]);
    expect(await client.countAgentDeviceVariables(agent.id, { value: '20' })).toBe(3);
    expect(await client.countAgentDeviceVariables(agent.id, { path: 'battery', has_history: true })).toBe(1);
    const pages = [
      await client.listAgentDeviceVariables(agent.id, { page_size: 4, page_number: 0 }),
      await client.listAgentDeviceVariables(agent.id, { page_size: 4, page_number: 1 }),
    ];
    expect(pages.map((p) => p.length)).toEqual([4, 2]);
    expect(new Set(pages.flat().map((v) => v.id)).size).toBe(6);
  });

  it('answers 404 for an unknown agent and 403 for an agent without API access', async () => {
    await expect(client.listAgentDeviceVariables(9999)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.countAgentDeviceVariables(9999)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    const error = (await client.listAgentDeviceVariables(closed.id).catch((e: unknown) => e)) as MonitoringApiError;
    expect(error).toBeInstanceOf(MonitoringApiError);
    expect(error.status).toBe(403);
    expect(error.body).toMatchObject({ status: 403, code: 'API_ACCESS_DISABLED' });
  });

  it('answers 401 to a client with a wrong key', async () => {
    const wrong = new MonitoringClient({ baseUrl: api.server.url, apiKey: 'nope' });
    await expect(wrong.listAgentDeviceVariables(agent.id)).rejects.toBeInstanceOf(MonitoringAuthError);
    await expect(wrong.countAgentVariables(agent.id)).rejects.toBeInstanceOf(MonitoringAuthError);
    await wrong.close();
  });
});

describe('getVariableHistory', () => {
  it('answers the samples of the last week by default, oldest first', async () => {
    const cpu = byPath(await client.listDeviceVariables(agent.id, nas.id)).cpu!;
    expect(await client.getVariableHistory(agent.id, nas.id, cpu.id)).toEqual([
      { timestamp: iso(first), value: '10' },
      { timestamp: iso(second), value: '15' },
    ]);
  });

  it('takes from and to (inclusive), each defaulting independently', async () => {
    const cpu = byPath(await client.listDeviceVariables(agent.id, nas.id)).cpu!;
    const values = async (query: { from?: string; to?: string }) => (await client.getVariableHistory(agent.id, nas.id, cpu.id, query)).map((s) => s.value);
    expect(await values({ from: iso(early) })).toEqual(['5', '10', '15']);
    expect(await values({ from: iso(early), to: iso(first) })).toEqual(['5', '10']);
    expect(await values({ from: iso(second), to: iso(second) })).toEqual(['15']);
    // to alone: from is one week before it.
    expect(await values({ to: iso(early + DAY) })).toEqual(['5']);
    expect(await values({ to: iso(early - MINUTE) })).toEqual([]);
  });

  it('reads times with a zone; refuses malformed times and from after to', async () => {
    const cpu = byPath(await client.listDeviceVariables(agent.id, nas.id)).cpu!;
    for (const [query, field] of [
      [{ from: `${iso(early)}+25:00` }, 'from'],
      [{ to: `${iso(now)}Y` }, 'to'],
      [{ from: '2026-13-01T00:00:00' }, 'from'],
      [{ from: iso(now), to: iso(early) }, 'from'],
    ] as const) {
      const error = (await client.getVariableHistory(agent.id, nas.id, cpu.id, query).catch((e: unknown) => e)) as MonitoringValidationError;
      expect(error, JSON.stringify(query)).toBeInstanceOf(MonitoringValidationError);
      expect(error.detail[0]!.loc).toEqual(['query', field]);
    }
    const zoneless = await client.getVariableHistory(agent.id, nas.id, cpu.id, { from: iso(early), to: iso(now) });
    expect(await client.getVariableHistory(agent.id, nas.id, cpu.id, { from: `${iso(early)}.000Z`, to: `${iso(now + 60 * MINUTE)}+01:00` })).toEqual(zoneless);
  });

  it('answers 404 for a variable of another device or agent, an agent variable, or a missing one', async () => {
    const battery = (await client.listDeviceVariables(agent.id, ups.id))[0]!;
    await expect(client.getVariableHistory(agent.id, nas.id, battery.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.getVariableHistory(agent.id, nas.id, agentCpu.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.getVariableHistory(agent.id, nas.id, 999999)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.getVariableHistory(other.id, ups.id, battery.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    const error = (await client.getVariableHistory(agent.id, nas.id, battery.id).catch((e: unknown) => e)) as MonitoringApiError;
    expect(error.body).toMatchObject({ message: `variable ${battery.id} not found` });
  });
});

describe('agent variables', () => {
  it('lists the agent’s own variables (not its devices’), with metric and history flags', async () => {
    const list = await client.listAgentVariables(agent.id, { sort_by: 'path' });
    expect(list.map((v) => v.path)).toEqual(['agent.cpu', 'agent.memory', 'agent.version']);
    expect(byPath(list)['agent.cpu']).toEqual({
      id: agentCpu.id,
      path: 'agent.cpu',
      label: 'Agent CPU',
      unit: '%',
      value: '4',
      previous_value: '3',
      metric: 'cpu_usage',
      has_history: true,
      creation_time: iso(now),
      value_update_time: iso(agentNow),
    });
    expect(byPath(list)['agent.version']).toMatchObject({ has_history: false });
    expect(byPath(list)['agent.version']).not.toHaveProperty('metric'); // unknown: left out (reference 1.14.0)
    expect(await client.countAgentVariables(agent.id)).toBe(3);
    expect(await client.listAgentVariables(other.id)).toEqual([]);
    expect(await client.countAgentVariables(other.id)).toBe(0);
  });

  it('filters by metric, has_history, value and path; counts equal the lists', async () => {
    const cases: Array<[Record<string, string | boolean>, string[]]> = [
      [{ metric: 'cpu_usage' }, ['agent.cpu']],
      [{ metric: 'memory_usage', value: '20' }, ['agent.memory']],
      [{ has_history: false }, ['agent.version']],
      [{ has_history: true }, ['agent.cpu', 'agent.memory']],
      [{ path: 'agent.version' }, ['agent.version']],
      [{ value: '20' }, ['agent.memory']],
    ];
    for (const [query, paths] of cases) {
      expect((await client.listAgentVariables(agent.id, { ...query, sort_by: 'path' })).map((v) => v.path), JSON.stringify(query)).toEqual(paths);
      expect(await client.countAgentVariables(agent.id, query), JSON.stringify(query)).toBe(paths.length);
    }
    expect((await client.listAgentVariables(agent.id, { sort_by: 'value', sorting_direction: 'desc' })).map((v) => v.value)).toEqual(['4', '20', '1.2.3']);
    expect(await client.listAgentVariables(agent.id, { page_size: 2, page_number: 1, sort_by: 'path' })).toHaveLength(1);
    // Past the maximum is clamped to it (1000), as the cloud does: never refused.
    expect(await client.listAgentVariables(agent.id, { page_size: 1001 })).toHaveLength(3);
  });

  it('answers the history of an agent variable; none is kept for one without history', async () => {
    expect(await client.getAgentVariableHistory(agent.id, agentCpu.id)).toEqual([
      { timestamp: iso(now), value: '3' },
      { timestamp: iso(agentNow), value: '4' },
    ]);
    expect(await client.getAgentVariableHistory(agent.id, agentCpu.id, { to: iso(now) })).toEqual([{ timestamp: iso(now), value: '3' }]);
    expect(await client.getAgentVariableHistory(agent.id, agentVersion.id)).toEqual([]);
    await expect(client.getAgentVariableHistory(agent.id, agentCpu.id, { from: 'yesterday' })).rejects.toBeInstanceOf(MonitoringValidationError);
  });

  it('answers 404 for a device variable asked as an agent variable, or another agent’s, and for unknown agents', async () => {
    const cpu = byPath(await client.listDeviceVariables(agent.id, nas.id)).cpu!;
    await expect(client.getAgentVariableHistory(agent.id, cpu.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.getAgentVariableHistory(other.id, agentCpu.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.listAgentVariables(9999)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.countAgentVariables(9999)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.getAgentVariableHistory(9999, agentCpu.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
  });
});

describe('the OpenAPI document', () => {
  it('lists the variables operations with their tag, filters and sort_by values', async () => {
    const doc = (await client.getOpenApiDefinition()) as { paths: Record<string, Record<string, { operationId: string; tags: string[]; parameters: Array<{ name: string; schema: { enum?: string[] } }> }>> };
    const list = doc.paths['/agent/{agent_id}/device/variable']!;
    expect(list.get!.operationId).toBe('listAgentDeviceVariables');
    expect(list.head!.operationId).toBe('countAgentDeviceVariables');
    expect(list.get!.tags).toEqual(['variables']);
    expect(list.get!.parameters.find((p) => p.name === 'sort_by')!.schema.enum).toContain('device_id');
    expect(doc.paths['/agent/{agent_id}/device/{device_id}/variable']!.get!.parameters.find((p) => p.name === 'sort_by')!.schema.enum).not.toContain('device_id');
    expect(doc.paths['/agent/{agent_id}/variable/{variable_id}/history']!.get!.operationId).toBe('getAgentVariableHistory');
  });
});
