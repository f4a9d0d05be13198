// The fault rig (bench/cluster) kept from rotting: its `kill` scenario with short periods, through
// the rig's own functions, with three real `driverbox agent` processes on loopback (no namespaces:
// this test needs no root), a throwaway PostgreSQL and Redis. kill -9 of one agent's process group
// must leave every association to the two others, nothing stored or polled twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS, QUICK, type RigOptions } from '../../bench/cluster/options.js';
import { Rig } from '../../bench/cluster/rig.js';
import { runScenario } from '../../bench/cluster/scenarios.js';
import type { ScenarioResult } from '../../bench/cluster/report.js';
import { ensureHostBuild } from '../../bench/lib/common.js';

const options: RigOptions = {
  ...DEFAULTS,
  ...QUICK,
  fastAssociations: 12,
  slowAssociations: 6,
  warmupS: 7,
  observeS: 13,
  netns: false,
  scenarios: ['kill'],
};

let rig: Rig | undefined;

beforeAll(async () => {
  ensureHostBuild();
  rig = await Rig.start(options);
}, 60_000);

afterAll(async () => {
  await rig?.close();
}, 30_000);

describe('the fault rig', () => {
  it('kill -9 of one of three agents: the survivors take every association, nothing doubled', async () => {
    const result: ScenarioResult = await runScenario(rig!, 'kill');
    const verdict = (goal: string) => result.checks.find((c) => c.goal === goal);
    const explain = JSON.stringify(result, null, 2);
    expect(verdict('G1 stored')?.met, explain).toBe(true);
    expect(verdict('G1 device')?.met, explain).toBe(true);
    expect(verdict('stale start')?.met, explain).toBe(true);
    expect(verdict('late write')?.met, explain).toBe(true);
    expect(verdict('G2 survivors')?.met, explain).toBe(true);
    // Some runs were stored before and after the kill, by the two survivors only.
    const after = result.figures.find(([name]) => name === 'runs after the kill by runner')?.[1] ?? '';
    expect(after, explain).toMatch(/a1 [1-9]/);
    expect(after, explain).toMatch(/a3 [1-9]/);
    expect(after, explain).not.toMatch(/a2/);
  }, 60_000);
});
