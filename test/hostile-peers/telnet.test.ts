// Hostile Telnet devices (issue 34): endless, dripping, byte-at-a-time, huge, malformed
// (negotiation), regex-hostile and crashing answers, each from a peer in a worker thread
// (telnet-peer.mjs). Each scenario asserts the run's result by its deadline, the host loop's
// stall under STALL_BOUND_MS, and a bystander device's runs all successful.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../../host/contract/run-result.js';
import { runSource, useHost } from '../helpers/host.js';
import { expectOthersUnharmed, startBystander, watchLoop } from './harness.js';
import { startPeerWorker, type PeerWorker } from './peer-worker.js';

const host = useHost();
let peer: PeerWorker | null = null;
afterEach(async () => {
  await peer?.stop();
  peer = null;
});

/** A driver making one Telnet call and reporting what its callback got (the transcript's length, the error). */
function probe(options: string): string {
  return `function get_status() {
  D.device.sendTelnetCommand(${options}, function (out, err) {
    D.success([
      D.createVariable('length', 'Length', String(out.length)),
      D.createVariable('tail', 'Tail', out.slice(-20)),
      D.createVariable('err', 'Err', err === '' ? 'EMPTY' : JSON.stringify({ code: err.code, message: String(err.message).slice(0, 400) })),
    ]);
  });
}`;
}

interface Outcome {
  result: RunResult;
  length: number;
  tail: string;
  err: '' | { code: string; message: string } | null;
}

async function scenario(name: string, options: string, limits: Record<string, number>): Promise<Outcome> {
  peer = await startPeerWorker(new URL('./telnet-peer.mjs', import.meta.url), name);
  const bystander = await startBystander(host);
  const watch = watchLoop();
  const result = await runSource(host, probe(options), {
    device: { id: `hostile-telnet-${name}`, ip: '127.0.0.1', portMap: { 23: peer.port } },
    limits,
  });
  await expectOthersUnharmed(watch, bystander, result, limits.timeoutMs!);
  const value = (uid: string) => result.variables.find((v) => v.uid === uid)?.value ?? null;
  const err = value('err');
  return { result, length: Number(value('length')), tail: value('tail') ?? '', err: err === null ? null : err === 'EMPTY' ? '' : JSON.parse(err) };
}

const BACKTRACKING = `{ regexp: '^([\\\\w.-]+)+[>#]\\\\s*$', flags: 'm' }`;

describe('hostile Telnet devices: the host keeps its loop, its bystanders and the run its deadline', () => {
  it('regex-hostile: one 41-character line against a backtracking shellPrompt ends the call on the run\'s pattern budget', async () => {
    const o = await scenario('regex', `{ command: 'x', shellPrompt: ${BACKTRACKING}, timeout: 8000 }`, { timeoutMs: 10_000 });
    expect(o.err).toEqual({ code: 'PATTERN_BUDGET_EXCEEDED', message: expect.stringMatching(/^shellPrompt \/.*\/m: the run's prompt patterns used up their budget of 1000 ms of CPU/) });
    expect(o.result.durationMs).toBeLessThan(5_000);
  }, 30_000);

  it('regex-hostile, slowly: every line costs a test some ms; their sum, not one test, is bounded', async () => {
    const o = await scenario('regex-slow', `{ command: 'x', shellPrompt: ${BACKTRACKING}, timeout: 8000 }`, { timeoutMs: 20_000 });
    expect(o.err).toEqual({ code: 'PATTERN_BUDGET_EXCEEDED', message: expect.stringContaining("the run's prompt patterns used up their budget of 1000 ms of CPU") });
  }, 40_000);

  it('byte at a time: 400,000 one-byte writes after the command, the transcript whole', async () => {
    const o = await scenario('bytes', `{ command: 'cat big', shellPrompt: 'box# ', timeout: 5000 }`, { timeoutMs: 30_000 });
    expect(o.err).toBe('');
    expect(o.length).toBeGreaterThan(400_000);
    expect(o.tail.endsWith('box# ')).toBe(true);
  }, 60_000);

  it('endless output: OUTPUT_TOO_LARGE at maxOutputBytes', async () => {
    const o = await scenario('endless', `{ command: 'x', shellPrompt: 'box# ' }`, { timeoutMs: 10_000, maxOutputBytes: 1024 * 1024 });
    expect(o.err).toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
  }, 30_000);

  it('huge output: OUTPUT_TOO_LARGE at maxOutputBytes, not 8 MiB held', async () => {
    const o = await scenario('huge', `{ command: 'x', shellPrompt: 'box# ' }`, { timeoutMs: 10_000, maxOutputBytes: 1024 * 1024 });
    expect(o.err).toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
  }, 30_000);

  it('dripping: never idle, never a prompt: the run ends at its deadline', async () => {
    const o = await scenario('drip', `{ command: 'x', shellPrompt: ${BACKTRACKING}, timeout: 500 }`, { timeoutMs: 2_000 });
    expect(o.result.status).toBe('failure');
    expect(o.result.errorType).toBe('TIMEOUT_ERROR');
  }, 30_000);

  it('malformed negotiation: a flood of DO / WILL, bare IACs, an endless subnegotiation: answered, then the idle timeout', async () => {
    const o = await scenario('malformed', `{ command: 'x', shellPrompt: 'box# ', timeout: 500 }`, { timeoutMs: 10_000 });
    expect(o.err).toBe('');
    expect(o.length).toBeGreaterThan(0);
  }, 30_000);

  it('crashing: a reset mid-command is the error, with the transcript so far', async () => {
    const o = await scenario('crash', `{ command: 'x', shellPrompt: 'box# ', timeout: 2000 }`, { timeoutMs: 10_000 });
    expect(o.err).toMatchObject({ code: 'ECONNRESET' });
  }, 30_000);
});
