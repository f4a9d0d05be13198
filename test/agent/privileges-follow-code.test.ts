// Issue 34, cause 8: the operator's privilege (an inventory driver may reach any external host)
// follows the code run, not the driver's id. An agent with an inventory driver and its API: an
// API-key holder runs their own code under that driver's id — a trial run, a simulated trial, an
// update of the driver then an execution through the API, the scheduled runs after that update —
// and every time it is refused the internal service on 127.0.0.1 that the operator's own file
// reaches. The operator's file, byte for byte (sent as a trial, or put back), keeps its privilege.
// (Scale-out workers run associations through the same runAssociation/readRunTarget as the
// embedded scheduler tested here.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../host/agent/agent.js';
import type { AgentRunFinished } from '../../host/agent/agent-types.js';
import { createAgent } from '../../host/server/agent-server.js';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import type { SimulatedDeviceInfo, TrialRunAnswer } from '../../host/api/driverbox/run-records.js';
import { openStore, type Store } from '../../host/store/store.js';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'privileges-follow-code-key';

/** A driver that reads the internal service at `where` and reports what it saw as variable `uid`. */
const reader = (port: number, where: string, uid = 'seen') => `function validate() { D.success(); }
function get_status() {
  try {
    D.createExternalDevice('127.0.0.1').http.get({ url: '${where}', port: ${port} }, function (err, res, body) {
      report(err ? 'error ' + err.code : 'body ' + body);
    });
  } catch (e) { report('thrown ' + e.message); }
}
function report(seen) {
  console.info('${uid}=' + seen);
  D.success([D.createVariable('${uid}', 'Seen', seen)]);
}
`;

describe('privileges follow code: the inventory driver\'s id does not lend its external hosts to other code', () => {
  let dir: string;
  let store: Store;
  let agent: Agent;
  let client: MonitoringClient;
  let device: DeviceServer;
  let internal: Server;
  let port = 0;
  const hits: string[] = [];
  const finished: AgentRunFinished[] = [];
  let operatorCode = '';
  let agentId = 0;
  let deviceId = 0;
  let driverId = 0;

  const api = async <T>(method: string, route: string, body?: object): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${agent.url}${route}`, {
      method,
      headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const seenIn = (variables: ReadonlyArray<{ uid: string; value: string | null }>, uid: string) => variables.find((v) => v.uid === uid)?.value;
  /** Asserts that `where` was refused: the driver saw a refusal, and the service never a request. */
  const expectRefused = (value: string | null | undefined, where: string) => {
    expect(value, `what the driver saw at ${where}`).toMatch(/^(thrown|error) /);
    expect(hits, `requests the internal service got`).not.toContain(where);
  };

  beforeAll(async () => {
    device = await startDeviceServer();
    internal = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('INTERNAL-SERVICE-SECRET');
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    port = (internal.address() as AddressInfo).port;
    dir = mkdtempSync(path.join(tmpdir(), 'driverbox-privileges-'));
    operatorCode = reader(port, '/operator');
    writeFileSync(path.join(dir, 'operator.js'), operatorCode);
    writeFileSync(
      path.join(dir, 'inventory.yaml'),
      [
        'version: 1',
        'devices:',
        `  - { name: lab, ip: 127.0.0.1, portMap: { 80: ${device.port} } }`,
        'drivers:',
        '  - { name: operator-reader, path: operator.js, samplePeriod: 1 }',
        'associations:',
        '  - { driver: operator-reader, device: lab }',
        '',
      ].join('\n'),
    );
    store = await openStore({ path: path.join(dir, 'driverbox.db'), secretKey: 'privileges-secret' });
    agent = createAgent({ store, inventory: path.join(dir, 'inventory.yaml'), scheduler: { jitterMs: 0 }, storeRefreshMs: 0, limits: { timeoutMs: 5000 }, api: { apiKeys: [KEY] } });
    agent.on('error', () => {});
    agent.on('runFinished', (run) => finished.push(run));
    await agent.start();
    client = new MonitoringClient({ baseUrl: agent.url!, apiKey: KEY });
    agentId = agent.agentId!;
    const sync = agent.scheduledAssociations()!;
    driverId = sync[0]!.driverId;
    deviceId = sync[0]!.deviceId;
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await agent?.stop();
    await store?.close();
    await device?.close();
    await new Promise<void>((resolve) => internal.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("the operator's file reaches the internal service on schedule and as a trial (the privilege it keeps)", async () => {
    await waitFor('a scheduled run of the operator\'s file', () => finished.some((r) => seenIn(r.result.variables, 'seen')?.startsWith('body ')));
    expect(hits).toContain('/operator');
    const trial = await api<TrialRunAnswer>('POST', `/driverbox-api/v1/agent/${agentId}/device/${deviceId}/trial-run`, { code: operatorCode, custom_driver_id: driverId });
    expect(trial.status).toBe(200);
    expect(seenIn(trial.body.variables, 'seen')).toBe('body INTERNAL-SERVICE-SECRET');
  }, 30_000);

  it("a trial run of other code under the inventory driver's id is refused the internal service (one byte more too)", async () => {
    const trial = await api<TrialRunAnswer>('POST', `/driverbox-api/v1/agent/${agentId}/device/${deviceId}/trial-run`, { code: reader(port, '/trial'), custom_driver_id: driverId });
    expect(trial.status).toBe(200);
    expectRefused(seenIn(trial.body.variables, 'seen'), '/trial');
    const oneByte = await api<TrialRunAnswer>('POST', `/driverbox-api/v1/agent/${agentId}/device/${deviceId}/trial-run`, {
      code: `${reader(port, '/trial-one-byte')} `,
      custom_driver_id: driverId,
    });
    expectRefused(seenIn(oneByte.body.variables, 'seen'), '/trial-one-byte');
  }, 30_000);

  it("a simulated trial of other code under the inventory driver's id is refused it; the operator's file is not", async () => {
    const listed = await api<{ devices: SimulatedDeviceInfo[] }>('GET', '/driverbox-api/v1/simulated-device');
    const name = listed.body.devices.find((d) => d.protocols.length === 1 && d.protocols[0] === 'http')!.name;
    const simulated = (code: string) => api<TrialRunAnswer>('POST', `/driverbox-api/v1/simulated-device/${name}/trial-run`, { code, custom_driver_id: driverId });
    const hostile = await simulated(reader(port, '/simulated'));
    expect(hostile.status).toBe(200);
    expectRefused(seenIn(hostile.body.variables, 'seen'), '/simulated');
    const own = await simulated(operatorCode);
    expect(seenIn(own.body.variables, 'seen')).toBe('body INTERNAL-SERVICE-SECRET');
  }, 30_000);

  it('an update of the inventory driver through the API, then an execution through the API: refused', async () => {
    await client.updateCustomDriver(driverId, { code: reader(port, '/updated', 'updated_seen') });
    const executed = await client.executeCustomDriverAction(driverId, agentId, deviceId, 0);
    expect(executed.outcome).toBe('success');
    expectRefused(executed.log?.find((l) => l.includes('updated_seen='))?.replace(/^.*updated_seen=/, ''), '/updated');
  }, 30_000);

  it("the scheduled runs after that update: refused; the operator's file put back byte for byte: allowed again", async () => {
    await client.updateCustomDriver(driverId, { code: reader(port, '/updated-scheduled', 'updated_seen') });
    // The scheduled runs after the update run the new code, under the uploaded drivers' policy.
    const from = finished.length;
    const ranUpdated = () => finished.slice(from).find((r) => seenIn(r.result.variables, 'updated_seen') !== undefined);
    await waitFor('a scheduled run of the updated code', () => ranUpdated() !== undefined);
    expectRefused(seenIn(ranUpdated()!.result.variables, 'updated_seen'), '/updated-scheduled');
    // Byte for byte the operator's file again (here through the API): it is the operator's code.
    await client.updateCustomDriver(driverId, { code: operatorCode });
    const back = finished.length;
    await waitFor("a scheduled run of the operator's file again", () => finished.slice(back).some((r) => seenIn(r.result.variables, 'seen')?.startsWith('body ')));
  }, 40_000);
});
