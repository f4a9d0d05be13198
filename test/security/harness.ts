// Shared by the security suite: run an attack, then prove the host is still healthy by
// running a trivial driver on the same host, which also checks that nothing the attack
// left behind (globals, polluted prototypes, replaced intrinsics) is visible in a new run.
import { expect } from 'vitest';
import type { Host, RunRequest, RunResult } from '../../host/index.js';
import { runSource } from '../helpers/host.js';

/**
 * Reports what it sees of the marks attacks leave: a global `pwned`, a `pwned` property on
 * Object / Array / Function prototypes, replaced JSON functions, a replaced Promise.
 */
const HEALTH_DRIVER = `
function get_status() {
  var seen = [
    typeof globalThis.pwned,
    typeof ({}).pwned,
    typeof [].pwned,
    typeof (function () {}).pwned,
    String(JSON.stringify).indexOf('[native code]') > 0,
    String(JSON.parse).indexOf('[native code]') > 0,
    String(Array.prototype.push).indexOf('[native code]') > 0,
    String(Promise).indexOf('[native code]') > 0,
    // The runtime's stack format (no frame of driverbox's own code), not a hook an attack left.
    (function () { var s = String(new Error('probe').stack); return s.indexOf('Error: probe\\n    at ') === 0 && s.indexOf('driverbox:') < 0; })(),
  ].join(',');
  D.success([D.createVariable('seen', 'Seen', seen)]);
}`;

const CLEAN = 'undefined,undefined,undefined,undefined,true,true,true,true,true';

/** The host still serves runs, in a fresh context. */
export async function expectHealthy(host: Host): Promise<void> {
  const next = await runSource(host, HEALTH_DRIVER, { limits: { timeoutMs: 10_000 } });
  expect(next.status, next.message ?? '').toBe('success');
  expect(next.variables.map((v) => v.value)).toEqual([CLEAN]);
}

/** Runs the attack, then checks the host serves the next run; resolves to the attack's result. */
export async function attack(host: Host, source: string, request: Omit<RunRequest, 'source'> = {}): Promise<RunResult> {
  const result = await runSource(host, source, request);
  await expectHealthy(host);
  return result;
}

/** The value of one variable the driver reported (its findings), or undefined. */
export function reported(result: RunResult, uid = 'found'): string | null | undefined {
  return result.variables.find((v) => v.uid === uid)?.value;
}

/** The findings a driver logged as JSON on its first console line. */
export function logged<T = Record<string, unknown>>(result: RunResult, index = 0): T {
  const line = result.logs[index];
  if (!line) throw new Error(`the run logged nothing at line ${index}: ${result.status} ${result.errorType ?? ''} ${result.message ?? ''}`);
  return JSON.parse(line.message) as T;
}
