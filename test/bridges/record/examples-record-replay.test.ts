// Every example driver, recorded against its simulated device(s) and then replayed with no
// device: the replay gives the same RunResult.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDriver } from '../../../host/testing/index.js';
import type { RunResult } from '../../../host/index.js';

const root = path.resolve(import.meta.dirname, '../../..', 'drivers-examples');
const examples = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-examples-rr-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function hostsOf(folder: string): Record<string, string> {
  try {
    return Object.fromEntries(readdirSync(path.join(folder, 'hosts')).map((f) => [f.replace(/\.json$/, ''), path.join(folder, 'hosts', f)]));
  } catch {
    return {};
  }
}

/** What must be the same: the outcome and everything the driver reported. */
const outcome = (r: RunResult) => ({ status: r.status, errorType: r.errorType, message: r.message, variables: r.variables, tables: r.tables, logs: r.logs });

describe('record against the simulator, replay with no device', () => {
  it('covers every example', () => expect(examples.length).toBeGreaterThanOrEqual(8));

  it.each(examples)('%s', async (name) => {
    const folder = path.join(root, name);
    const file = path.join(work, `${name}.json`);
    const recorded = await runDriver({ path: path.join(folder, 'driver.js'), simulate: path.join(folder, 'device.json'), simulateHosts: hostsOf(folder), record: file });
    expect(recorded.status, recorded.message ?? '').toBe('success');
    // The simulators are closed now: only the file can answer. A recording keeps no driver
    // parameters (they may hold API keys): the replay is given them again.
    const fixture = JSON.parse(readFileSync(path.join(folder, 'device.json'), 'utf8')) as { device?: { password?: string }; parameters?: Record<string, unknown> };
    const replayed = await runDriver({ path: path.join(folder, 'driver.js'), replay: file, parameters: fixture.parameters });
    expect(outcome(replayed)).toEqual(outcome(recorded));
    expect(replayed.http.map((h) => [h.method, h.status, h.error])).toEqual(recorded.http.map((h) => [h.method, h.status, h.error]));
    // No device password reaches the file.
    if (fixture.device?.password) expect(readFileSync(file, 'utf8')).not.toContain(fixture.device.password);
  });
});
