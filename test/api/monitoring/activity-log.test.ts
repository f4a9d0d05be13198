// getAgentActivityLog through MonitoringClient: entries of reported runs and others, the time
// window and its defaults, the type filter.
import { describe, expect, it } from 'vitest';
import { MonitoringApiError, MonitoringNotFoundError, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { addActivity } from '../../../host/store/fleet/activity-log.js';
import { createAgentRecord, ensureLocalAgent } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { writeRunResult } from '../../../host/store/runs/report-run.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';
import { failure, success, variable } from '../../helpers/run-results.js';

const api = await startMonitoringFixture();
const { client, store, clock } = api;
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);

const agent = await ensureLocalAgent(store);
const nas = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.7' });
const other = await createAgentRecord(store, { displayName: 'elsewhere' });
const closed = await createAgentRecord(store, { displayName: 'no api', apiEnabled: false });

const t0 = clock.now;
await addActivity(store, { agentId: agent.id, type: 'note', user: 'alice', description: 'old note' });
clock.now = t0 + 10 * DAY;
const tRun = clock.now;
const run = await writeRunResult(store, { agentId: agent.id, deviceId: nas.id, driverName: 'nas.js', user: 'bob' }, success([variable('cpu', '12')], { durationMs: 40 }));
clock.now += HOUR;
const tFail = clock.now;
await writeRunResult(store, { agentId: agent.id, deviceId: nas.id, driverName: 'nas.js' }, failure('AUTHENTICATION_ERROR', 'wrong password', { action: 'custom_1' }));
clock.now += HOUR;
const tPower = clock.now;
await addActivity(store, { agentId: agent.id, deviceId: nas.id, type: 'power_cycle', user: 'carol', description: 'power cycle of nas' });
await addActivity(store, { agentId: other.id, type: 'note', user: 'dave', description: 'not this agent' });
clock.now += HOUR;

describe('getAgentActivityLog', () => {
  it('answers the last week by default, oldest first, with a custom_driver_execute entry per run', async () => {
    const log = await client.getAgentActivityLog(agent.id);
    expect(log).toEqual([
      {
        timestamp: iso(tRun),
        type: 'custom_driver_execute',
        user: 'bob',
        description: 'nas.js get_status: success, 1 variable',
        device_id: nas.id,
        details: {
          run_id: run.runId,
          custom_driver_id: null,
          association_id: null,
          driver: 'nas.js',
          action: 'get_status',
          outcome: 'success',
          error_type: null,
          message: null,
          limit_exceeded: null,
          variable_count: 1,
          table_count: 0,
          elapsed_ms: 40,
        },
      },
      {
        timestamp: iso(tFail),
        type: 'custom_driver_execute',
        user: 'driverbox',
        description: 'nas.js custom_1: failure (AUTHENTICATION_ERROR: wrong password)',
        device_id: nas.id,
        details: expect.objectContaining({ outcome: 'failure', error_type: 'AUTHENTICATION_ERROR', message: 'wrong password', variable_count: 0 }),
      },
      { timestamp: iso(tPower), type: 'power_cycle', user: 'carol', description: 'power cycle of nas', device_id: nas.id },
    ]);
  });

  it('takes from and to, inclusive; an entry without a device or details has neither field', async () => {
    const all = await client.getAgentActivityLog(agent.id, { from: iso(t0) });
    expect(all.map((e) => e.description)).toEqual([
      'old note',
      'nas.js get_status: success, 1 variable',
      'nas.js custom_1: failure (AUTHENTICATION_ERROR: wrong password)',
      'power cycle of nas',
    ]);
    expect(Object.keys(all[0]!).sort()).toEqual(['description', 'timestamp', 'type', 'user']);
    expect((await client.getAgentActivityLog(agent.id, { from: iso(tFail), to: iso(tPower) })).map((e) => e.type)).toEqual(['custom_driver_execute', 'power_cycle']);
    expect(await client.getAgentActivityLog(agent.id, { from: iso(tRun + 1000), to: iso(tFail - 1000) })).toEqual([]);
    // to alone: from is one week before it.
    expect((await client.getAgentActivityLog(agent.id, { to: iso(t0 + DAY) })).map((e) => e.description)).toEqual(['old note']);
  });

  it('filters by one type or several', async () => {
    const runs = await client.getAgentActivityLog(agent.id, { type: 'custom_driver_execute' });
    expect(runs.map((e) => e.timestamp)).toEqual([iso(tRun), iso(tFail)]);
    const some = await client.getAgentActivityLog(agent.id, { from: iso(t0), type: ['note', 'power_cycle'] });
    expect(some.map((e) => e.type)).toEqual(['note', 'power_cycle']);
    expect(await client.getAgentActivityLog(agent.id, { type: 'vpn_session_start' })).toEqual([]);
  });

  it('refuses a type that is not an activity type, and bad times, with 422', async () => {
    const error = (await client.getAgentActivityLog(agent.id, { type: 'reboot' as never }).catch((e: unknown) => e)) as MonitoringValidationError;
    expect(error).toBeInstanceOf(MonitoringValidationError);
    expect(error.status).toBe(422);
    expect(error.detail[0]!.loc).toEqual(['query', 'type', 0]);
    expect(error.detail[0]!.msg).toContain('custom_driver_execute');
    const second = (await client.getAgentActivityLog(agent.id, { type: ['note', 'nope' as never] }).catch((e: unknown) => e)) as MonitoringValidationError;
    expect(second.detail[0]!.loc).toEqual(['query', 'type', 1]);
    await expect(client.getAgentActivityLog(agent.id, { from: `${iso(t0)}Zulu` })).rejects.toBeInstanceOf(MonitoringValidationError);
    await expect(client.getAgentActivityLog(agent.id, { from: iso(tPower), to: iso(tRun) })).rejects.toBeInstanceOf(MonitoringValidationError);
  });

  it('keeps agents apart: 404 for an unknown agent, 403 without API access', async () => {
    expect((await client.getAgentActivityLog(other.id)).map((e) => e.user)).toEqual(['dave']);
    await expect(client.getAgentActivityLog(9999)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    const error = (await client.getAgentActivityLog(closed.id).catch((e: unknown) => e)) as MonitoringApiError;
    expect(error.status).toBe(403);
  });
});
