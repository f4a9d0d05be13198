// A scenario's outcome: its figures, and each target with the measured value and met / not met.
import { table } from '../lib/common.js';

export interface Check {
  /** The goal (G1 … G7) and what is checked. */
  goal: string;
  target: string;
  measured: string;
  /** null: could not be checked here (the reason is in `measured`). */
  met: boolean | null;
}

export interface ScenarioResult {
  scenario: string;
  /** Wall time of the scenario, s. */
  seconds: number;
  figures: [string, string][];
  checks: Check[];
  notes: string[];
}

export function check(goal: string, target: string, measured: string, met: boolean | null): Check {
  return { goal, target, measured, met };
}

const verdict = (met: boolean | null) => (met === null ? 'n/a' : met ? 'met' : 'NOT MET');

export function formatScenario(result: ScenarioResult): string {
  const lines = [`\n=== ${result.scenario} (${Math.round(result.seconds)} s)`];
  for (const [name, value] of result.figures) lines.push(`  ${name}: ${value}`);
  lines.push('', table(['goal', 'target', 'measured', 'verdict'], result.checks.map((c) => [c.goal, c.target, c.measured, verdict(c.met)]), 99));
  for (const note of result.notes) lines.push(`  note: ${note}`);
  return lines.join('\n');
}

export function formatSummary(results: ScenarioResult[]): string {
  const rows = results.flatMap((r) => r.checks.map((c) => [r.scenario, c.goal, c.target, c.measured, verdict(c.met)]));
  return `\n=== summary\n${table(['scenario', 'goal', 'target', 'measured', 'verdict'], rows, 99)}\n`;
}

/** True when no check failed (n/a ones do not count). */
export function allMet(results: ScenarioResult[]): boolean {
  return results.every((r) => r.checks.every((c) => c.met !== false));
}
