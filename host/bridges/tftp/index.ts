// D.tftpServer.accept on the host: one TFTP receiver per run (host/bridges/tftp/receiver.ts),
// opened by the 'open' call (answered with the address and port the device must upload to,
// what the driver's onReady gets) and awaited by the 'receive' call (answered with the file,
// what onUpload gets). It listens on the host's address that faces the device, takes uploads
// from the device's address only, is bounded by the run (bytes: maxOutputBytes; time: the
// driver's timeout within the run's deadline) and is closed when the run ends.
import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ProtocolAnswer, ProtocolContext } from '../core/protocol-handler.js';
import { startReceiver, type TftpReceiver } from './receiver.js';

/** How long onUpload waits for the device when the driver gives no timeout, ms. */
export const DEFAULT_TFTP_TIMEOUT_MS = 30_000;
/** The one port a driver may ask for: TFTP's own, which devices upload to by default. */
export const TFTP_PORT = 69;
const MAX_FILE_NAME_CHARS = 255;

interface RunReceiver {
  receiver: TftpReceiver;
  timeoutMs: number;
  url: string;
  received: boolean;
}

/** The run's receiver, by the run's abort signal (one RunNetwork, one signal). */
const receivers = new WeakMap<AbortSignal, RunReceiver | 'opening'>();

const refuse = (code: string, message: string): ProtocolAnswer => ({ error: { code, message } });

/** The device's address and the host's address that routes to it (a UDP connect sends nothing). */
async function facing(host: string, port: number): Promise<{ device: string; local: string }> {
  const device = isIP(host) ? host : (await lookup(host)).address;
  const probe = dgram.createSocket(isIP(device) === 6 ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.connect(port, device, () => resolve());
    });
    return { device, local: probe.address().address };
  } finally {
    probe.close();
  }
}

function checkOptions(options: Record<string, unknown>): { fileName: string | null; timeoutMs: number | null; port: number | null } | string {
  const { filePath, timeout, port } = options;
  if (filePath !== undefined && filePath !== null) {
    if (typeof filePath !== 'string' || filePath === '' || filePath.length > MAX_FILE_NAME_CHARS || /[\0\r\n]/.test(filePath)) {
      return `filePath must be a file name of 1 to ${MAX_FILE_NAME_CHARS} characters (got ${typeof filePath === 'string' ? JSON.stringify(filePath.slice(0, 40)) : typeof filePath})`;
    }
  }
  if (timeout !== undefined && timeout !== null && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) {
    return `timeout must be a number of milliseconds above 0 (got ${JSON.stringify(timeout) ?? typeof timeout})`;
  }
  if (port !== undefined && port !== null && (!Number.isInteger(port) || (port as number) < 0 || (port as number) > 65535)) {
    return `port must be a UDP port number (got ${JSON.stringify(port) ?? typeof port})`;
  }
  return { fileName: (filePath as string | undefined) ?? null, timeoutMs: (timeout as number | undefined) ?? null, port: (port as number | undefined) ?? null };
}

async function open(ctx: ProtocolContext, options: Record<string, unknown>): Promise<ProtocolAnswer> {
  const checked = checkOptions(options);
  if (typeof checked === 'string') return refuse('INVALID_OPTIONS', `D.tftpServer.accept: ${checked}`);
  if (ctx.target.external) return refuse('INVALID_OPTIONS', 'D.tftpServer.accept receives from the run’s device only');
  if (receivers.has(ctx.signal)) return refuse('TFTP_BUSY', 'D.tftpServer.accept: a run has one TFTP receiver and this run opened it already');
  const endpoint = ctx.endpoint(TFTP_PORT);
  if (!endpoint) return refuse('NO_ADDRESS', 'D.tftpServer.accept: the device has no address to receive from');
  if ('refused' in endpoint) return refuse(endpoint.refused.code, `D.tftpServer.accept: ${endpoint.refused.message}`);
  if (!ctx.takeSession()) return refuse('TOO_MANY_SESSIONS', 'D.tftpServer.accept: the run has used all its device sessions');
  receivers.set(ctx.signal, 'opening');
  let receiver: TftpReceiver;
  try {
    const { device, local } = await facing(endpoint.host, endpoint.port);
    const base = { address: local, peer: device, fileName: checked.fileName, maxBytes: ctx.maxOutputBytes };
    // TFTP's own port when the driver asks for it and the host may bind it (free, and privileged
    // ports allowed); else a random one, which onReady reports.
    receiver =
      checked.port === TFTP_PORT
        ? await startReceiver({ ...base, port: TFTP_PORT }).catch(() => startReceiver({ ...base, port: 0 }))
        : await startReceiver({ ...base, port: 0 });
  } catch (error) {
    receivers.delete(ctx.signal);
    return refuse('TFTP_ERROR', `D.tftpServer.accept: the TFTP receiver could not be opened: ${(error as Error).message}`);
  }
  if (ctx.signal.aborted) {
    receiver.close();
    return refuse('ABORTED', 'the run ended');
  }
  ctx.signal.addEventListener('abort', () => receiver.close(), { once: true });
  ctx.holdsUntilEnd?.();
  const timeoutMs = Math.max(0, Math.min(checked.timeoutMs ?? DEFAULT_TFTP_TIMEOUT_MS, ctx.timeLeftMs()));
  // The clock starts now: the driver's onReady has yet to make the device upload.
  receiver.deadline(timeoutMs);
  const host = receiver.address.includes(':') ? `[${receiver.address}]` : receiver.address;
  receivers.set(ctx.signal, { receiver, timeoutMs, url: `tftp://${host}:${receiver.port}/${checked.fileName ?? ''}`, received: false });
  return { error: null, result: { host: receiver.address, port: receiver.port } };
}

async function receive(ctx: ProtocolContext): Promise<ProtocolAnswer> {
  const state = receivers.get(ctx.signal);
  if (!state || state === 'opening') return refuse('TFTP_ERROR', 'D.tftpServer.accept: no TFTP receiver is open in this run');
  if (state.received) return refuse('TFTP_BUSY', 'D.tftpServer.accept: the upload was already delivered');
  state.received = true;
  const exchange = ctx.exchange(state.url, `WRQ (waiting up to ${Math.round(state.timeoutMs)} ms)`);
  const outcome = await state.receiver.upload;
  if (!outcome.ok) {
    exchange.finish({ error: outcome.error });
    return { error: { ...outcome.error } };
  }
  const content = outcome.content.toString('utf8');
  exchange.finish({ response: content, requestBytes: 0, responseBytes: outcome.content.length });
  return { error: null, result: { content, fileName: outcome.fileName, mode: outcome.mode, bytes: outcome.content.length } };
}

/** The 'tftp' module: options.op is 'open' or 'receive' (set by runtime/tftp.ts). */
export async function tftpRequest(ctx: ProtocolContext, options: Record<string, unknown>): Promise<ProtocolAnswer> {
  try {
    if (options.op === 'open') return await open(ctx, options);
    if (options.op === 'receive') return await receive(ctx);
    return refuse('INVALID_OPTIONS', 'D.tftpServer: unknown operation');
  } catch (error) {
    return refuse('TFTP_ERROR', `D.tftpServer: ${(error as Error).message}`);
  }
}
