// SNMP settings kept by the store reach the run: set through the Public API
// (PUT …/snmp-authentication) and used by the API's execute action against a real snmpd;
// given in an inventory's `snmp:` field (checked, synced into the store).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadInventory } from '../../host/agent/inventory/load.js';
import { syncInventory } from '../../host/agent/inventory/sync.js';
import { createAgentRecord } from '../../host/store/fleet/agents.js';
import { createDevice, getSnmpAuthentication } from '../../host/store/fleet/devices.js';
import { deviceSpecOf } from '../../host/store/runs/run-request.js';
import { getDevice } from '../../host/store/fleet/devices.js';
import { haveSnmpd, snmpdAuth, startSnmpd, type Snmpd } from '../helpers/snmpd.js';
import { useHost } from '../helpers/host.js';
import { startMonitoringFixture } from '../helpers/monitoring.js';

const host = useHost({ limits: { timeoutMs: 15_000 } });
const api = await startMonitoringFixture({ host });
const agent = await createAgentRecord(api.store, { displayName: 'snmp lab' });

const DRIVER = `
function get_status() {
  D.device.createSNMPSession({ timeout: 1000 }).get(['1.3.6.1.2.1.1.1.0', '1.3.6.1.2.1.1.5.0'], function (output, error) {
    if (error) { console.error(error.name + ': ' + error.message); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
    console.info('sysName ' + output['1.3.6.1.2.1.1.5.0']);
    D.success([D.createVariable('descr', 'sysDescr', output['1.3.6.1.2.1.1.1.0'])]);
  });
}
function validate() { D.success(); }`;

describe.skipIf(!haveSnmpd)('settings from the store, through the API\'s execute action, against snmpd', () => {
  let snmpd: Snmpd;
  beforeAll(async () => {
    snmpd = await startSnmpd();
  });
  afterAll(() => snmpd?.stop());

  it('none set: v2c public (a timeout here); v3 authPriv, then v2c, set with PUT snmp-authentication: the run uses them', async () => {
    const device = await createDevice(api.store, agent.id, { displayName: 'snmpd', ip: '127.0.0.1', portMap: { 161: snmpd.port } });
    const driver = await api.client.createCustomDriver({ name: 'SNMP sysDescr', code: DRIVER });
    await api.client.createCustomDriverAssociation(driver.id, agent.id, device.id);
    // Nothing set yet: v2c "public", which this agent does not know: a timeout, the driver's failure.
    const before = await api.client.executeCustomDriverAction(driver.id, agent.id, device.id, 0);
    expect(before).toMatchObject({ outcome: 'failure', errorType: 'RESOURCE_UNAVAILABLE' });
    expect(before.log).toEqual(['error: RequestTimedOutError: Request timed out']);

    const { user } = snmpdAuth;
    await api.client.setSNMPAuthentication(agent.id, device.id, {
      version: 'V3_AUTH_PRIV',
      username: user.name,
      authentication_protocol: 'SHA',
      authentication_key: user.authKey,
      encryption_protocol: 'AES',
      encryption_key: user.privKey,
    });
    expect((await deviceSpecOf(api.store, (await getDevice(api.store, agent.id, device.id))!)).snmp).toEqual({
      version: 'v3',
      user: { name: user.name, level: 'authPriv', authProtocol: 'sha', authKey: user.authKey, privProtocol: 'aes', privKey: user.privKey },
    });
    const after = await api.client.executeCustomDriverAction(driver.id, agent.id, device.id, 0);
    expect(after).toMatchObject({ outcome: 'success' });
    expect(after).not.toHaveProperty('errorType');
    expect(after.log![0]).toMatch(/^info: sysName \S+/);

    // v2c with the read community through the same route.
    await api.client.setSNMPAuthentication(agent.id, device.id, { version: 'V2', snmp_read_community: snmpdAuth.readCommunity });
    expect(await api.client.executeCustomDriverAction(driver.id, agent.id, device.id, 0)).toMatchObject({ outcome: 'success' });
  });
});

describe('an inventory\'s snmp field', () => {
  const write = (yaml: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-snmp-inv-'));
    writeFileSync(path.join(dir, 'driver.js'), DRIVER);
    const file = path.join(dir, 'inventory.yaml');
    writeFileSync(file, yaml);
    return file;
  };
  const inventory = (snmp: string) => `version: 1
devices:
  - name: ups
    ip: 192.0.2.50
${snmp}
drivers:
  - name: ups-snmp
    path: driver.js
associations:
  - driver: ups-snmp
    device: ups
`;

  it('is checked with its field paths', () => {
    const problems = (snmp: string) => {
      try {
        loadInventory(write(inventory(snmp)), { env: {} });
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problems('    snmp: { version: 4 }')).toContain('devices[0].snmp.version: must be 1, 2c or 3');
    expect(problems('    snmp: { version: 3 }')).toContain('devices[0].snmp.user: is required for SNMP v3');
    expect(problems('    snmp: { community: { env: NOT_SET } }')).toContain('devices[0].snmp.community');
    expect(problems('    snmp: { version: 2c, user: ops }')).toContain('devices[0].snmp.user: is for SNMP v3 only');
    expect(problems('    snmp: { comunity: x }')).toContain('devices[0].snmp.comunity');
  });

  it('is synced into the store and reaches the run\'s device; secrets may come from the environment', async () => {
    const file = write(inventory('    snmp: { version: 3, user: ops, authProtocol: sha256, authKey: { env: UPS_AUTH }, privKey: { env: UPS_PRIV } }'));
    const loaded = loadInventory(file, { env: { UPS_AUTH: 'auth-from-env', UPS_PRIV: 'priv-from-env' } });
    await syncInventory(api.store, loaded);
    const row = (await api.store.statement<[], { id: number; agent_id: number }>("SELECT id, agent_id FROM devices WHERE display_name = 'ups'").get())!;
    expect(await getSnmpAuthentication(api.store, row.id)).toEqual({
      version: 'V3_AUTH_PRIV', username: 'ops', authentication_protocol: 'SHA-256', authentication_key: 'auth-from-env', encryption_protocol: 'AES', encryption_key: 'priv-from-env',
    });
    expect((await deviceSpecOf(api.store, (await getDevice(api.store, row.agent_id, row.id))!)).snmp).toEqual({
      version: 'v3', user: { name: 'ops', level: 'authPriv', authProtocol: 'sha256', authKey: 'auth-from-env', privProtocol: 'aes', privKey: 'priv-from-env' },
    });
  });
});
