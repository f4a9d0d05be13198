import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from 'driverbox';
import { assertSuccess, assertTableRows, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const fixture = new URL('./device.json', import.meta.url).pathname;

describe('windows-host', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator(fixture);
  });
  afterAll(() => sim.close());

  it('reports the operating system and the disks, logged in with NTLM', async () => {
    const result = await runDriver({ path: driver, simulate: sim });
    assertSuccess(result);
    assertVariables(result, { os: 'Microsoft Windows Server 2022 Standard', version: '10.0.20348', 'memory-used': 75 }, { only: true });
    assertTableRows(result, 'Disks', [
      { id: 'c', Name: 'System', Size: 100, Free: 30, Usage: 70 },
      { id: 'd', Name: 'Data', Size: 500, Free: 400, Usage: 20 },
    ]);
    expect(sim.winrm!.events.filter((e) => e.action === 'command').map((e) => e.auth)).toEqual(['ntlm', 'ntlm']);
  });

  it('validate passes; a wrong password is an AUTHENTICATION_ERROR', async () => {
    assertSuccess(await runDriver({ path: driver, simulate: sim, action: 'validate' }));
    const denied = await runDriver({ path: driver, simulate: sim, device: { password: 'wrong' } });
    expect(denied).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
    expect(denied.logs[0]?.message).toBe('Failed to process the request, status Code: 401 - response body: ');
  });
});
