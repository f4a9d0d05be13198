// Hostile WinRM services (test/hostile-peers/winrm-peer.mjs, in a worker thread): endless,
// dripping, huge, malformed, regex-hostile, badly referenced, faulting and crashing answers, and
// forged NTLM challenges. Each run ends by its deadline with the error that says what happened,
// the host's loop is never held past STALL_BOUND_MS, and a bystander device notices nothing.
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSource, useHost } from '../helpers/host.js';
import { STALL_BOUND_MS, startBystander, watchLoop, type Bystander } from './harness.js';

const host = useHost();

/** The run's deadline; the WinRM call's own timeout is shorter (CALL_TIMEOUT_MS). */
const RUN_TIMEOUT_MS = 10_000;
const CALL_TIMEOUT_MS = 3000;

const driver = (username: string) => `function get_status() {
  D.device.sendWinRMCommand({ command: 'hostname', username: ${JSON.stringify(username)}, password: 'pw', timeout: ${CALL_TIMEOUT_MS} }, function (output) {
    var e = output.error;
    D.success([
      D.createVariable('outcome', 'Outcome', JSON.stringify(output.outcome)),
      D.createVariable('error', 'Error', e === null ? 'null' : JSON.stringify({ code: e.code, message: String(e.message).slice(0, 300) })),
    ]);
  });
}`;

interface Peer {
  port: number;
  stop(): Promise<void>;
}

async function startPeer(scenario: string, at?: string): Promise<Peer> {
  const worker = new Worker(new URL('./winrm-peer.mjs', import.meta.url), { workerData: { scenario, at } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
  });
  return { port, stop: () => worker.terminate().then(() => undefined) };
}

interface Seen {
  outcome: { stdout: string; exitCode: number } | null;
  error: { code: unknown; message: string } | null;
  durationMs: number;
  maxStallMs: number;
}

/** One run against the peer, with the loop watched and the bystander polled beside it. */
async function against(scenario: string, options: { at?: string; username?: string } = {}): Promise<Seen> {
  const peer = await startPeer(scenario, options.at);
  const bystander: Bystander = await startBystander(host);
  const watch = watchLoop();
  try {
    const result = await runSource(host, driver(options.username ?? 'admin'), {
      device: { id: `winrm-${scenario}`, ip: '127.0.0.1', portMap: { 5985: peer.port } },
      limits: { timeoutMs: RUN_TIMEOUT_MS },
    });
    const { maxStallMs } = watch.stop();
    // The run ended by its own means, by its deadline: the driver's callback reported.
    expect(result.status, result.message ?? '').toBe('success');
    const value = (uid: string) => result.variables.find((v) => v.uid === uid)!.value as string;
    return { outcome: JSON.parse(value('outcome')), error: JSON.parse(value('error')), durationMs: result.durationMs, maxStallMs };
  } finally {
    watch.stop();
    const seen = await bystander.stop();
    await peer.stop();
    expect(seen.failures.map((f) => `${f.errorType}: ${f.message}`)).toEqual([]);
    expect(seen.runs).toBeGreaterThan(0);
  }
}

/** What every scenario asserts first: the loop's stall bounded, the run ended before its deadline. */
function held(seen: Seen): void {
  expect(seen.maxStallMs, `the host loop stalled ${seen.maxStallMs} ms`).toBeLessThan(STALL_BOUND_MS);
  expect(seen.durationMs).toBeLessThan(RUN_TIMEOUT_MS);
}

describe('a hostile WinRM service', () => {
  it('honest (the peer itself is sound): the output', async () => {
    const seen = await against('honest');
    held(seen);
    expect(seen.error).toBeNull();
    expect(seen.outcome).toMatchObject({ stdout: 'peer ok\r\n', exitCode: 0 });
  });

  it('an endless 200: OUTPUT_TOO_LARGE at the MaxEnvelopeSize the client announces', async () => {
    const seen = await against('endless');
    held(seen);
    expect(seen.error).toEqual({ code: 'OUTPUT_TOO_LARGE', message: expect.stringContaining('larger than the limit of 153600 bytes') });
  });

  it('a huge 200 (64 MB announced): OUTPUT_TOO_LARGE; a huge 500 page: the HTTP error, its body cut', async () => {
    const seen = await against('huge');
    held(seen);
    expect(seen.error).toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
    const page = await against('huge-error-page');
    held(page);
    expect(page.error).toEqual({ code: 500, message: expect.stringMatching(/^Failed to process the request, status Code: 500 - response body: A{100}/) });
  });

  it('dripping, a byte per write: each answer read as it comes, the output in the end', async () => {
    for (const at of ['create', 'receive']) {
      const seen = await against('drip', { at });
      held(seen);
      expect(seen.error).toBeNull();
      expect(seen.outcome).toMatchObject({ stdout: 'peer ok\r\n', exitCode: 0 });
    }
  });

  it("dripping forever: the call's timeout", async () => {
    const seen = await against('drip-forever');
    held(seen);
    expect(seen.error).toEqual({ code: 'ETIMEDOUT', message: `the WinRM command did not finish within ${CALL_TIMEOUT_MS} ms` });
  });

  it('malformed XML: MALFORMED_RESPONSE with the parser\'s reason', async () => {
    const seen = await against('malformed');
    held(seen);
    expect(seen.error).toMatchObject({ code: 'MALFORMED_RESPONSE', message: expect.stringMatching(/^Malformed Server response: not well-formed XML \(1:\d+: unexpected close tag\.\)$/) });
  });

  it('300 KB of "<Fault" with no ">" in a 200: refused at the bound, nothing rescanned', async () => {
    const seen = await against('fault-no-gt-300k');
    held(seen);
    expect(seen.error).toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
  });

  it('150 KB of "<Fault" with no ">", within the bound: parsed once, in a 500 the HTTP error', async () => {
    const seen = await against('fault-no-gt-150k');
    held(seen);
    expect(seen.error).toMatchObject({ code: 500, message: expect.stringMatching(/^Failed to process the request, status Code: 500 - response body: <s:Envelope/) });
  });

  it('a 401 HTML page full of "<Fault": the status, the body never parsed', async () => {
    const seen = await against('fault-no-gt-401-html');
    held(seen);
    expect(seen.error).toMatchObject({ code: 401, message: expect.stringMatching(/^Failed to process the request, status Code: 401 - response body: <html><Fault/) });
  });

  it('one 60 KB attribute name in a Receive: MALFORMED_RESPONSE', async () => {
    const seen = await against('attribute-60k', { at: 'receive' });
    held(seen);
    expect(seen.error).toMatchObject({ code: 'MALFORMED_RESPONSE', message: expect.stringContaining('not well-formed XML') });
  });

  it('10,000 nested elements: read, and no ShellId in them', async () => {
    const seen = await against('deep');
    held(seen);
    expect(seen.error).toMatchObject({ code: 'MALFORMED_RESPONSE', message: expect.stringMatching(/^Malformed Server response: no ShellId in /) });
  });

  it('an invalid character reference: MALFORMED_RESPONSE in a 200, the HTTP error in a 500 (never INTERNAL_ERROR)', async () => {
    const seen = await against('char-ref');
    held(seen);
    expect(seen.error).toEqual({ code: 'MALFORMED_RESPONSE', message: expect.stringMatching(/^Malformed Server response: not well-formed XML \(.*malformed character entity/) });
    const fault = await against('char-ref-fault-500');
    held(fault);
    expect(fault.error).toMatchObject({ code: 500 });
  });

  it('a document type declaration (an entity bomb) is refused, nothing expanded', async () => {
    const seen = await against('entity');
    held(seen);
    expect(seen.error).toMatchObject({ code: 'MALFORMED_RESPONSE', message: expect.stringContaining('document type declaration') });
  });

  it('a fault: in a 500 the platform\'s HTTP error, in a 200 SOAP_FAULT with its reason', async () => {
    const five = await against('fault-500');
    held(five);
    expect(five.error).toMatchObject({ code: 500, message: expect.stringMatching(/^Failed to process the request, status Code: 500 - response body: <s:Envelope/) });
    const two = await against('fault-200');
    held(two);
    expect(two.error).toEqual({ code: 'SOAP_FAULT', message: 'Server responded SOAP Fault: the service refused (WS-Management code 2150858770)' });
  });

  it('an exit code of 5,000 digits: MALFORMED_RESPONSE', async () => {
    const seen = await against('exit-code', { at: 'receive' });
    held(seen);
    expect(seen.error).toMatchObject({ code: 'MALFORMED_RESPONSE', message: expect.stringContaining('is not a 32-bit exit code') });
  });

  it('a reset in the middle of the body: the connection error', async () => {
    const seen = await against('reset');
    held(seen);
    expect(seen.error).toMatchObject({ code: expect.stringMatching(/^(ECONNRESET|UND_ERR_SOCKET)$/), message: expect.stringMatching(/^Failed to reach the WinRM service at /) });
  });

  it('forged NTLM challenges: NTLM_ERROR naming the fault, or the refusal that follows', async () => {
    const offset = await against('ntlm-offset', { username: 'DOM\\admin' });
    held(offset);
    expect(offset.error).toEqual({ code: 'NTLM_ERROR', message: expect.stringMatching(/^the WinRM server's NTLM challenge is malformed: its target information \(65535 bytes at offset 4294967280\) lies outside/) });
    const type = await against('ntlm-type', { username: 'DOM\\admin' });
    held(type);
    expect(type.error).toEqual({ code: 'NTLM_ERROR', message: "the WinRM server's NTLM challenge is malformed: message type 3, not a CHALLENGE (2)" });
    // AV pairs that run past the end: the walk stops; the AUTHENTICATE is sent and refused.
    for (const scenario of ['ntlm-pairs', 'ntlm-pair-length']) {
      const pairs = await against(scenario, { username: 'DOM\\admin' });
      held(pairs);
      expect(pairs.error).toMatchObject({ code: 401 });
    }
    const huge = await against('ntlm-huge-header', { username: 'DOM\\admin' });
    held(huge);
    expect(huge.error).toMatchObject({ code: expect.stringMatching(/^UND_ERR_HEADERS_OVERFLOW$/) });
  });
});
