// An SSH driver through the Monitoring API's execute action, against a real sshd: the device's
// address and port map, and the association's credentials, come from the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalAgent } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { useHost } from '../../helpers/host.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';
import { sshdUnavailable, startSshd, type Sshd } from '../../helpers/sshd.js';

const unavailable = sshdUnavailable();

const driver = `
function run(done) {
  D.device.sendSSHCommand({ command: 'cat /proc/loadavg; id -un', timeout: 10000 }, function (out, err) {
    if (err && err.code === 5) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    if (err) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    done(out.split('\\n'));
  });
}
function validate() { run(function () { D.success(); }); }
function get_status() {
  run(function (lines) {
    D.success([
      D.createVariable('load1', 'Load 1 min', lines[0].split(' ')[0], null, D.valueType.NUMBER),
      D.createVariable('user', 'User', lines[1])
    ]);
  });
}`;

describe.skipIf(unavailable !== null)('an SSH driver through the Monitoring API execute action', () => {
  const host = useHost();
  let sshd: Sshd;
  let api: Awaited<ReturnType<typeof startMonitoringFixture>>;
  beforeAll(async () => {
    sshd = await startSshd();
    api = await startMonitoringFixture({ host });
  });
  afterAll(async () => {
    await sshd?.stop();
  });

  it('runs with the stored address, port map and credentials; a wrong password is AUTHENTICATION_ERROR', async () => {
    const agent = await ensureLocalAgent(api.store);
    const created = await api.client.createCustomDriver({ name: 'Linux over SSH', code: driver });
    expect(created.is_valid).toBe(true);
    const device = await createDevice(api.store, agent.id, { displayName: 'linux', ip: '127.0.0.1', portMap: { 22: sshd.port } });
    await api.client.createCustomDriverAssociation(created.id, agent.id, device.id, { credentials: { username: sshd.user, password: sshd.password } });
    const result = await api.client.executeCustomDriverAction(created.id, agent.id, device.id, 0);
    expect(result, JSON.stringify(result)).toMatchObject({ outcome: 'success' });
    const byPath = Object.fromEntries((await api.client.listDeviceVariables(agent.id, device.id)).map((v) => [v.path, v.value]));
    // The user name came back from the device; the store masks the run's credentials, the user name too.
    expect(byPath.user).toBe('***');
    expect(Number(byPath.load1)).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(result)).not.toContain(sshd.password);

    const { setDeviceCredentials } = await import('../../../host/store/fleet/credentials.js');
    await setDeviceCredentials(api.store, device.id, 'CUSTOM_DRIVER_MANAGEMENT', { username: sshd.user, password: 'wrong-password' });
    const failed = await api.client.executeCustomDriverAction(created.id, agent.id, device.id, 0);
    expect(failed).toMatchObject({ outcome: 'failure', errorType: 'AUTHENTICATION_ERROR' });
  });
});
