// The protocol modules through the agent and the API's execute action: the example drivers for
// SSH (exec and shell), Telnet, SNMP and WinRM, scheduled by createAgent from an inventory
// against their simulated devices, run in the supervised sandbox process; then executed again
// through the agent's Monitoring API. Addresses, port maps, credentials and SNMP settings come
// from the inventory, through the store.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../host/agent/agent.js';
import type { AgentRunFinished } from '../../host/agent/agent-types.js';
import { createAgent } from '../../host/server/agent-server.js';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { startSimulator, type Simulator } from '../../host/simulator/simulator.js';
import { openStore, type Store } from '../../host/store/index.js';
import { openTestStore } from '../helpers/store.js';

const API_KEY = 'protocols-agent-key';
const examples = join(import.meta.dirname, '../..', 'drivers-examples');
const cases = [
  { name: 'linux-ssh', module: 'SSH' },
  { name: 'switch-ssh-shell', module: 'SSH-SHELL' },
  { name: 'telnet-switch', module: 'TELNET' },
  { name: 'ups-snmp', module: 'SNMP' },
  { name: 'windows-host', module: 'WINRM' },
] as const;

describe('protocol drivers through the agent and its API', () => {
  const sims = new Map<string, Simulator>();
  let store: Store;
  let agent: Agent;
  const finished: AgentRunFinished[] = [];

  beforeAll(async () => {
    const devices = [];
    for (const { name } of cases) {
      const sim = await startSimulator(join(examples, name, 'device.json'));
      sims.set(name, sim);
      const fixture = JSON.parse(readFileSync(join(examples, name, 'device.json'), 'utf8')) as {
        device?: { username?: string; password?: string };
        snmp?: { community?: string; writeCommunity?: string };
      };
      devices.push({
        name,
        ip: '127.0.0.1',
        portMap: sim.portMap,
        ...(fixture.device?.username ? { credentials: { username: fixture.device.username, password: fixture.device.password ?? '' } } : {}),
        ...(fixture.snmp ? { snmp: { version: '2c', community: fixture.snmp.community, writeCommunity: fixture.snmp.writeCommunity } } : {}),
      });
    }
    const inventory = {
      version: 1,
      devices,
      drivers: cases.map(({ name }) => ({ name, path: join(examples, name, 'driver.js'), samplePeriod: 3600 })),
      associations: cases.map(({ name }) => ({ driver: name, device: name })),
    };
    const dir = mkdtempSync(join(tmpdir(), 'driverbox-protocols-agent-'));
    const file = join(dir, 'inventory.json');
    writeFileSync(file, JSON.stringify(inventory));
    store = await openTestStore({ secretKey: 'protocols-agent-secret' });
    agent = createAgent({ store, inventory: file, scheduler: { jitterMs: 100 }, storeRefreshMs: 0, api: { apiKeys: [API_KEY] } });
    agent.on('runFinished', (run) => finished.push(run));
    await agent.start();
    const end = Date.now() + 30_000;
    while (cases.some(({ name }) => !finished.some((run) => run.name.includes(name)))) {
      if (Date.now() > end) throw new Error(`scheduled runs missing: ${cases.filter(({ name }) => !finished.some((r) => r.name.includes(name))).map((c) => c.name).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 60_000);

  afterAll(async () => {
    await agent?.stop({ graceMs: 0 });
    await store?.close();
    for (const sim of sims.values()) await sim.close();
  });

  it.each(cases)('$name: the scheduled run succeeds over $module, its exchanges in the stored run', ({ name, module }) => {
    const run = finished.find((r) => r.name.includes(name))!;
    expect(run.result.status, `${run.result.errorType}: ${run.result.message}`).toBe('success');
    expect(run.result.variables.length).toBeGreaterThan(0);
    expect(run.result.http.map((h) => h.method)).toContain(module);
    expect(run.result.http.every((h) => h.error === null)).toBe(true);
    expect(run.runId).not.toBeNull();
  });

  it('the API execute action runs each of them again in the agent sandbox process', async () => {
    const client = new MonitoringClient({ baseUrl: agent.url!, apiKey: API_KEY });
    const agentId = agent.agentId!;
    const drivers = await client.listCustomDrivers();
    const devices = await client.listDevices(agentId);
    for (const { name } of cases) {
      const driver = drivers.find((d) => d.name === name)!;
      const device = devices.find((d) => d.display_name === name)!;
      expect(driver, name).toBeDefined();
      expect(device, name).toBeDefined();
      const result = await client.executeCustomDriverAction(driver.id, agentId, device.id, 0);
      expect(result, `${name}: ${JSON.stringify(result)}`).toMatchObject({ outcome: 'success' });
    }
  });
});
