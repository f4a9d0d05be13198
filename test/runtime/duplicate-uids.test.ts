// Duplicate variable uids in one D.success (issue 36, docs/reference/compatibility.md): `driverbox run`,
// a trial of the testing helpers, the agent and the Monitoring API agree. The run's result
// reports every one, as the official emulator prints them all, with one warning naming the
// values; the store the agent writes keeps the last one, and the API answers that value.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentRunFinished } from '../../host/agent/agent-types.js';
import { createAgent } from '../../host/server/agent-server.js';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { getVariable } from '../../host/testing/assertions.js';
import { openTestStore } from '../helpers/store.js';

const API_KEY = 'duplicate-uids-key';
const DRIVER = `function validate() { D.success(); }
function get_status() {
  D.success([
    D.createVariable('fan', 'Fan', 1200, 'rpm', D.valueType.NUMBER),
    D.createVariable('temp', 'Temperature', 41, 'C', D.valueType.NUMBER),
    D.createVariable('fan', 'Fan', 1350, 'rpm', D.valueType.NUMBER),
  ]);
}
`;
const WARNING = 'duplicate variable uid "fan": reported 2 times, values "1200", "1350"; all are in the run\'s result, the store keeps the last one ("1350")';
const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-duplicate-uids-'));
writeFileSync(path.join(dir, 'fans.js'), DRIVER);
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('duplicate variable uids: run, agent and API agree', () => {
  it('`driverbox run --json` reports both, with the warning', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.resolve('bin/driverbox.js'), 'run', path.join(dir, 'fans.js'), '--device-ip', '127.0.0.1', '--json'], { timeout: 60_000 });
    const result = JSON.parse(stdout) as { variables: Array<{ uid: string; value: string }>; warnings: string[] };
    expect(result.variables.map((v) => [v.uid, v.value])).toEqual([['fan', '1200'], ['temp', '41'], ['fan', '1350']]);
    expect(result.warnings).toEqual([WARNING]);
    // The testing helpers name the variable the store keeps.
    expect(getVariable(result as never, 'fan').value).toBe('1350');
  });

  it('the agent stores the last one, the Monitoring API answers it, and the run record keeps the warning once', async () => {
    const store = await openTestStore({ secretKey: 'duplicate-uids-secret' });
    cleanups.push(() => store.close());
    const inventory = path.join(dir, 'inventory.yaml');
    writeFileSync(
      inventory,
      ['version: 1', 'devices:', '  - { name: d1, ip: 127.0.0.1 }', 'drivers:', '  - { name: fans, path: fans.js, samplePeriod: 60 }', 'associations:', '  - { driver: fans, device: d1 }', ''].join('\n'),
    );
    const agent = createAgent({ store, inventory, scheduler: { jitterMs: 0 }, storeRefreshMs: 0, api: { apiKeys: [API_KEY] } });
    const finished: AgentRunFinished[] = [];
    agent.on('runFinished', (run) => finished.push(run));
    cleanups.push(async () => void (await agent.stop({ graceMs: 0 })));
    await agent.start();
    await expect.poll(() => finished.length, { timeout: 30_000, interval: 25 }).toBeGreaterThanOrEqual(1);
    const run = finished[0]!;
    expect(run.result.variables.map((v) => v.value)).toEqual(['1200', '41', '1350']);
    const client = new MonitoringClient({ baseUrl: agent.url!, apiKey: API_KEY });
    cleanups.push(() => client.close());
    const variables = await client.listDeviceVariables(agent.agentId!, run.deviceId);
    expect(variables.map((v) => [v.path, v.value]).sort()).toEqual([['fan', '1350'], ['temp', '41']]);
    const record = await store.statement<[number], { warnings: string }>('SELECT warnings FROM runs WHERE id = ?').get(run.runId!);
    expect(JSON.parse(record!.warnings)).toEqual([WARNING]);
  });
});
