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
import { tftpError } from './errors.js';
import { tftpOptions } from './options.js';
import { startReceiver, type TftpReceiver } from './receiver.js';

/** How long onUpload waits for the device when the driver gives no timeout, ms. */
export const DEFAULT_TFTP_TIMEOUT_MS = 30_000;
/** The one port a driver may ask for: TFTP's own, which devices upload to by default. */
export const TFTP_PORT = 69;

interface RunReceiver {
  receiver: TftpReceiver;
  timeoutMs: number;
  url: string;
  received: boolean;
}

/** The run's receiver, by the run's abort signal (one RunNetwork, one signal). */
const receivers = new WeakMap<AbortSignal, RunReceiver | 'opening'>();

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

async function open(ctx: ProtocolContext, options: Record<string, unknown>): Promise<ProtocolAnswer> {
  const checked = tftpOptions(options);
  if (typeof checked === 'string') return tftpError('INVALID_OPTIONS', `D.tftpServer.accept: ${checked}`);
  if (ctx.target.external) return tftpError('INVALID_OPTIONS', 'D.tftpServer.accept receives from the run’s device only');
  if (receivers.has(ctx.signal)) return tftpError('TFTP_BUSY', 'D.tftpServer.accept: a run has one TFTP receiver and this run opened it already');
  const endpoint = ctx.endpoint(TFTP_PORT);
  if (!endpoint) return tftpError('NO_ADDRESS', 'D.tftpServer.accept: the device has no address to receive from');
  if ('refused' in endpoint) return tftpError(endpoint.refused.code, `D.tftpServer.accept: ${endpoint.refused.message}`);
  if (!ctx.takeSession()) return tftpError('TOO_MANY_SESSIONS', 'D.tftpServer.accept: the run has used all its device sessions');
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
    return tftpError('TFTP_ERROR', `D.tftpServer.accept: the TFTP receiver could not be opened: ${(error as Error).message}`);
  }
  if (ctx.signal.aborted) {
    receiver.close();
    return tftpError('ABORTED', 'the run ended');
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
  if (!state || state === 'opening') return tftpError('TFTP_ERROR', 'D.tftpServer.accept: no TFTP receiver is open in this run');
  if (state.received) return tftpError('TFTP_BUSY', 'D.tftpServer.accept: the upload was already delivered');
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
    return tftpError('INVALID_OPTIONS', 'D.tftpServer: unknown operation');
  } catch (error) {
    return tftpError('TFTP_ERROR', `D.tftpServer: ${(error as Error).message}`);
  }
}
