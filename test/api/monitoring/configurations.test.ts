// Configuration Management (Public API 1.14.0) through MonitoringClient against a real server:
// backupDeviceConfiguration runs the router-config-backup example's backup() against its
// simulated device through the host, the history, one configuration, one created through the
// API, and the documented errors.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonitoringApiError, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { parseConfigurationTime } from '../../../host/api/monitoring/routes/configurations.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { md5 } from '../../../host/store/results/configurations.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { listDeviceRuns } from '../../../host/store/runs/runs.js';
import { startSimulator, type Simulator } from '../../../host/simulator/simulator.js';
import { useHost } from '../../helpers/host.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';

const example = (file: string) => new URL(`../../../drivers-examples/router-config-backup/${file}`, import.meta.url).pathname;
const code = readFileSync(example('driver.js'), 'utf8');
const running = readFileSync(example('running-config.txt'), 'utf8');
const startup = readFileSync(example('startup-config.txt'), 'utf8');
// The device's credentials are masked, its user name as well as its password.
const masked = (text: string) => text.replaceAll('edge-cfg-pass', '***').replaceAll('admin', '***');

const host = useHost();
const api = await startMonitoringFixture({ host });
const noHost = await startMonitoringFixture();
const { client, store, clock } = api;
const agent = await createAgentRecord(store, { displayName: 'lab' });
const other = await createAgentRecord(store, { displayName: 'elsewhere' });
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error as MonitoringApiError;
}

describe('backupDeviceConfiguration and the history', () => {
  let router: Simulator;
  let deviceId: number;
  beforeAll(async () => {
    router = await startSimulator(example('device.json'));
    const device = await createDevice(store, agent.id, { displayName: 'edge-r1', ip: router.device.ip, portMap: router.portMap });
    deviceId = device.id;
    const driver = await client.createCustomDriver({ name: 'Router config backup', code, type: 'CONFIGURATION_MANAGEMENT' });
    const made = await client.createCustomDriverAssociation(driver.id, agent.id, device.id, { credentials: { username: 'admin', password: 'edge-cfg-pass' } });
    expect(made.error).toBeUndefined();
  });
  afterAll(() => router.close());

  it('is empty before any backup; latest is 404', async () => {
    expect(await client.deviceConfigurationHistoryList(agent.id, deviceId)).toEqual([]);
    const none = await failure(client.getDeviceConfiguration(agent.id, deviceId, 'latest'));
    expect(none.status).toBe(404);
    expect((none.body as { message: string }).message).toBe(`device ${deviceId} has no configuration backup yet`);
  });

  it("runs the driver's backup() and answers 202; the configuration is in the history with its MD5s, the password masked", async () => {
    await expect(client.backupDeviceConfiguration(agent.id, deviceId)).resolves.toBeUndefined();
    const history = await client.deviceConfigurationHistoryList(agent.id, deviceId);
    expect(history).toEqual([
      { label: 'edge-r1 configuration', running_md5: md5(masked(running)), startup_md5: md5(masked(startup)), timestamp: '2026-01-15T12:00:00+00:00' },
    ]);
    const latest = await client.getDeviceConfiguration(agent.id, deviceId, 'latest');
    expect(latest).toEqual({ ...history[0], running: masked(running), startup: masked(startup) });
    expect(latest.running).toContain('username *** privilege 15 secret ***');
    expect(await client.getDeviceConfiguration(agent.id, deviceId, history[0]!.timestamp)).toEqual(latest);
    const runs = await listDeviceRuns(store, deviceId);
    expect(runs[0]).toMatchObject({ action: 'backup', outcome: 'success' });
  });

  it('an unchanged configuration adds no entry; a changed one comes first', async () => {
    clock.now += 60_000;
    await client.backupDeviceConfiguration(agent.id, deviceId);
    expect(await client.deviceConfigurationHistoryList(agent.id, deviceId)).toHaveLength(1);
    clock.now += 60_000;
    await client.createDeviceConfiguration(agent.id, deviceId, { label: 'hand-made', running: b64('hostname edge-r1\nsecret edge-cfg-pass\n') });
    const history = await client.deviceConfigurationHistoryList(agent.id, deviceId);
    expect(history.map((h) => [h.label, h.timestamp, h.startup_md5 === undefined])).toEqual([
      ['hand-made', '2026-01-15T12:02:00+00:00', true],
      ['edge-r1 configuration', '2026-01-15T12:00:00+00:00', false],
    ]);
    const made = await client.getDeviceConfiguration(agent.id, deviceId, '2026-01-15T12:02:00+00:00');
    expect(made).toEqual({ label: 'hand-made', running_md5: md5('hostname edge-r1\nsecret ***\n'), timestamp: '2026-01-15T12:02:00+00:00', running: 'hostname edge-r1\nsecret ***\n' });
    // Other spellings of the same second.
    for (const at of ['2026-01-15T12:02:00Z', '2026-01-15T12:02:00+0000', '2026-01-15T13:02:00+01:00', '2026-01-15T12:02:00']) {
      expect((await client.getDeviceConfiguration(agent.id, deviceId, at)).label).toBe('hand-made');
    }
  });

  it('a startup identical to running is skipped in the answer', async () => {
    clock.now += 60_000;
    await client.createDeviceConfiguration(agent.id, deviceId, { label: 'same', running: b64('a\n'), startup: b64('a\n') });
    const latest = await client.getDeviceConfiguration(agent.id, deviceId, 'latest');
    expect(latest).toEqual({ label: 'same', running_md5: md5('a\n'), startup_md5: md5('a\n'), timestamp: '2026-01-15T12:03:00+00:00', running: 'a\n' });
  });

  it('a failed backup run answers 202 too, is recorded, and adds nothing', async () => {
    const broken = await createDevice(store, agent.id, { displayName: 'edge-down', ip: '127.0.0.1', portMap: { 80: 1 } });
    const driverId = (await client.listCustomDrivers()).find((d) => d.name === 'Router config backup')!.id;
    await client.createCustomDriverAssociation(driverId, agent.id, broken.id, { credentials: { username: 'admin', password: 'x-pass' } });
    await client.backupDeviceConfiguration(agent.id, broken.id);
    expect(await client.deviceConfigurationHistoryList(agent.id, broken.id)).toEqual([]);
    expect((await listDeviceRuns(store, broken.id))[0]).toMatchObject({ action: 'backup', outcome: 'failure', errorType: 'RESOURCE_UNAVAILABLE' });
  });
});

describe('errors', async () => {
  const plain = await createDevice(store, agent.id, { displayName: 'plain', ip: '192.0.2.7' });

  it('404 NO_BACKUP_DRIVER when no driver applied to the device defines backup(); 404 for a device of another agent', async () => {
    const e = await failure(client.backupDeviceConfiguration(agent.id, plain.id));
    expect(e.status).toBe(404);
    expect(e.code).toBe('NO_BACKUP_DRIVER');
    const statusOnly = await client.createCustomDriver({ name: 'status only', code: 'function validate() { D.success(); }\nfunction get_status() { D.success(); }' });
    await client.createCustomDriverAssociation(statusOnly.id, agent.id, plain.id);
    expect((await failure(client.backupDeviceConfiguration(agent.id, plain.id))).code).toBe('NO_BACKUP_DRIVER');
    // Each call gets its handler at once: one refused before its turn is not an unhandled rejection.
    for (const refused of [
      client.backupDeviceConfiguration(other.id, plain.id),
      client.deviceConfigurationHistoryList(other.id, plain.id),
      client.getDeviceConfiguration(agent.id, 4242, 'latest'),
      client.createDeviceConfiguration(agent.id, 4242, { label: 'x', running: b64('x') }),
    ].map((call) => failure(call))) {
      expect((await refused).status).toBe(404);
    }
  });

  it('503 when the server runs no drivers', async () => {
    const agentB = await createAgentRecord(noHost.store, { displayName: 'b' });
    const device = await createDevice(noHost.store, agentB.id, { displayName: 'r', ip: '192.0.2.8' });
    const driver = await noHost.client.createCustomDriver({ name: 'backup', code: code });
    await noHost.client.createCustomDriverAssociation(driver.id, agentB.id, device.id, { credentials: { username: 'a', password: 'b-pass' } });
    const e = await failure(noHost.client.backupDeviceConfiguration(agentB.id, device.id));
    expect(e.status).toBe(503);
    expect(e.code).toBe('EXECUTION_UNAVAILABLE');
  });

  it('422 for a body that is not base64, a label missing, a configuration over 1 MiB, a bad timestamp; 404 for a time with none', async () => {
    const bad = (await failure(client.createDeviceConfiguration(agent.id, plain.id, { label: 'x', running: 'not base64!' }))) as MonitoringValidationError;
    expect(bad.status).toBe(422);
    expect(bad.detail[0]).toMatchObject({ loc: ['body', 'running'] });
    const noLabel = (await failure(client.createDeviceConfiguration(agent.id, plain.id, { running: b64('x') } as never))) as MonitoringValidationError;
    expect(noLabel.status).toBe(422);
    const big = (await failure(client.createDeviceConfiguration(agent.id, plain.id, { label: 'x', running: b64('x'.repeat(1048577)) }))) as MonitoringValidationError;
    expect(big.status).toBe(422);
    expect(big.message).toContain('holds 1048577 characters once decoded; at most 1048576 are allowed');
    expect((await failure(client.getDeviceConfiguration(agent.id, plain.id, 'yesterday'))).status).toBe(422);
    expect((await failure(client.getDeviceConfiguration(agent.id, plain.id, '2026-02-30T00:00:00+00:00'))).status).toBe(422);
    const missing = await failure(client.getDeviceConfiguration(agent.id, plain.id, '2026-01-15T12:00:00+00:00'));
    expect(missing.status).toBe(404);
    expect((missing.body as { message: string }).message).toBe(`device ${plain.id} has no configuration backup at 2026-01-15T12:00:00+00:00`);
    // A full 1 MiB running and startup fit the body limit.
    await client.createDeviceConfiguration(agent.id, plain.id, { label: 'full', running: b64('r'.repeat(1048576)), startup: b64('s'.repeat(1048576)) });
    expect((await client.getDeviceConfiguration(agent.id, plain.id, 'latest')).running).toHaveLength(1048576);
  });

  it('parses the timestamp forms', () => {
    expect(parseConfigurationTime('latest')).toBe('latest');
    expect(parseConfigurationTime('2026-01-15T12:00:00 00:00')).toBe(Date.UTC(2026, 0, 15, 12)); // "+" sent unencoded in a query
    expect(parseConfigurationTime('2026-01-15T10:00:00-02:00')).toBe(Date.UTC(2026, 0, 15, 12));
    expect(parseConfigurationTime('2026-01-15T12:00:00+00:60')).toBeNull();
    expect(parseConfigurationTime('2026-01-15 12:00:00')).toBeNull();
  });
});
