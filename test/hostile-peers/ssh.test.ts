// Hostile SSH devices (issue 34): endless, dripping, byte-at-a-time, huge, malformed,
// regex-hostile and crashing answers, each from a peer in a worker thread (ssh-peer.mjs). Each
// scenario asserts the run's result by its deadline, the host loop's stall under
// STALL_BOUND_MS, and a bystander device's runs all successful.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../../host/contract/run-result.js';
import { runSource, useHost } from '../helpers/host.js';
import { expectOthersUnharmed, startBystander, watchLoop } from './harness.js';
import { startPeerWorker, type PeerWorker } from './peer-worker.js';

const host = useHost();
const ONE_BYTE_PACKETS = 400_000;
let peer: PeerWorker | null = null;
afterEach(async () => {
  await peer?.stop();
  peer = null;
});

/** A driver making one SSH call and reporting what its callback got (the output's length, the error). */
function probe(fn: 'sendSSHCommand' | 'sendSSHCommands', options: Record<string, unknown>): string {
  return `function get_status() {
  D.device.${fn}(${JSON.stringify(options)}, function (out, err) {
    var text = out === null ? null : Array.isArray(out) ? out.join('') : out;
    D.success([
      D.createVariable('length', 'Length', text === null ? 'null' : String(text.length)),
      D.createVariable('tail', 'Tail', text === null ? 'null' : text.slice(-20)),
      D.createVariable('err', 'Err', err ? JSON.stringify({ code: err.code === undefined ? 'none' : err.code, message: String(err.message).slice(0, 400) }) : 'null'),
    ]);
  });
}`;
}

interface Outcome {
  result: RunResult;
  length: string;
  tail: string;
  err: { code: unknown; message: string } | null;
  maxStallMs: number;
}

async function scenario(name: string, fn: 'sendSSHCommand' | 'sendSSHCommands', options: Record<string, unknown>, limits: Record<string, number>): Promise<Outcome> {
  peer = await startPeerWorker(new URL('./ssh-peer.mjs', import.meta.url), name);
  const bystander = await startBystander(host);
  const watch = watchLoop();
  const result = await runSource(host, probe(fn, options), {
    device: { id: `hostile-ssh-${name}`, ip: '127.0.0.1', portMap: { 22: peer.port }, username: 'admin', password: 'secret' },
    limits,
  });
  const { maxStallMs } = await expectOthersUnharmed(watch, bystander, result, limits.timeoutMs!);
  const value = (uid: string) => result.variables.find((v) => v.uid === uid)?.value ?? 'missing';
  const err = value('err');
  return { result, length: value('length'), tail: value('tail'), err: err === 'null' ? null : JSON.parse(err), maxStallMs };
}

const shell = (options: Record<string, unknown>) => ({ commands: ['show all'], inter_command_timeout_ms: 50, ...options });

describe('hostile SSH devices: the host keeps its loop, its bystanders and the run its deadline', () => {
  it('byte at a time: 400,000 one-byte packets, then the prompt (shell, prompt found as the text streams)', async () => {
    const o = await scenario('bytes', 'sendSSHCommands', shell({ global_timeout_ms: 25_000 }), { timeoutMs: 30_000 });
    expect(o.result.status, o.result.message ?? '').toBe('success');
    expect(o.err).toBeNull();
    expect(Number(o.length)).toBeGreaterThanOrEqual(ONE_BYTE_PACKETS);
    expect(o.tail.endsWith('sw# ')).toBe(true);
  }, 60_000);

  it('byte at a time with prompt_regex: its tests coalesced on a bounded window, the prompt still found', async () => {
    const o = await scenario('bytes', 'sendSSHCommands', shell({ prompt: 'never-shown', prompt_regex: '^sw#\\s*$', prompt_regex_flags: 'm', global_timeout_ms: 25_000 }), { timeoutMs: 30_000 });
    expect(o.err).toBeNull();
    expect(Number(o.length)).toBeGreaterThanOrEqual(ONE_BYTE_PACKETS);
    expect(o.tail.endsWith('sw# ')).toBe(true);
  }, 60_000);

  it('byte at a time (exec): the output kept compactly and joined once', async () => {
    const o = await scenario('bytes', 'sendSSHCommand', { command: 'cat big', timeout: 25_000 }, { timeoutMs: 30_000 });
    expect(o.err).toBeNull();
    expect(o.length).toBe(String(ONE_BYTE_PACKETS));
  }, 60_000);

  it('regex-hostile: one 41-character line against a backtracking prompt_regex ends the call on the run\'s pattern budget', async () => {
    const o = await scenario('regex', 'sendSSHCommands', shell({ prompt: 'never-shown', prompt_regex: '^([\\w.-]+)+[>#]\\s*$', prompt_regex_flags: 'm' }), { timeoutMs: 10_000 });
    expect(o.err).toEqual({
      code: 'none',
      message: expect.stringMatching(/^prompt_regex \/\^\(\[\\w\.-\]\+\)\+\[>#\]\\s\*\$\/m: the run's prompt patterns used up their budget of 1000 ms of CPU/),
    });
    expect(o.result.durationMs).toBeLessThan(5_000);
  }, 30_000);

  it('regex-hostile, slowly: every line costs a test some ms; their sum, not one test, is bounded', async () => {
    const o = await scenario('regex-slow', 'sendSSHCommands', shell({ prompt: 'never-shown', prompt_regex: '^([\\w.-]+)+[>#]\\s*$', prompt_regex_flags: 'm' }), { timeoutMs: 20_000 });
    expect(o.err?.message).toContain("the run's prompt patterns used up their budget of 1000 ms of CPU");
  }, 40_000);

  it('endless output: the call ends at maxOutputBytes', async () => {
    const o = await scenario('endless', 'sendSSHCommands', shell({}), { timeoutMs: 10_000, maxOutputBytes: 1024 * 1024 });
    expect(o.err?.message).toMatch(/passed 1048576 bytes \(the run's maxOutputBytes\)/);
  }, 30_000);

  it('huge output (exec): OUTPUT_TOO_LARGE at maxOutputBytes, not 8 MiB held', async () => {
    const o = await scenario('huge', 'sendSSHCommand', { command: 'dump', timeout: 8_000 }, { timeoutMs: 10_000, maxOutputBytes: 1024 * 1024 });
    expect(o.err).toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
  }, 30_000);

  it('dripping: a byte every 20 ms and never a prompt ends on global_timeout_ms', async () => {
    const o = await scenario('drip', 'sendSSHCommands', shell({ prompt_regex: 'never[>#]$', global_timeout_ms: 1_500 }), { timeoutMs: 10_000 });
    expect(o.err).toEqual({ code: 'none', message: 'timeout' });
  }, 30_000);

  it('malformed: garbage after the banner fails the connection at once', async () => {
    const o = await scenario('malformed', 'sendSSHCommand', { command: 'x', timeout: 5_000 }, { timeoutMs: 10_000 });
    expect(o.err).toMatchObject({ code: 255 });
  }, 30_000);

  it('crashing: a reset mid-command ends the sequence with the hang-up', async () => {
    const o = await scenario('crash', 'sendSSHCommands', shell({ commands: ['show all', 'show more'] }), { timeoutMs: 10_000 });
    expect(o.err?.message).toMatch(/^(disconnected|socket closed|read ECONNRESET)$/);
  }, 30_000);
});
