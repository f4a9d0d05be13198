// D.device.sendTelnetCommand: the driver's options checked (options.ts), one connection to the
// device's endpoint (session.ts), the run's bounds, secrets and transcript applied here.
// The answer: { error: null, result: transcript }, or an error (with the transcript so far as
// result) that the runtime hands the driver as callback(transcript, error).
import type { ProtocolHandler } from '../core/protocol-handler.js';
import { TelnetOptionError, telnetOptions, type TelnetOptions } from './options.js';
import { runTelnet } from './session.js';

export const telnetCommand: ProtocolHandler = async (ctx, raw) => {
  let options: TelnetOptions;
  try {
    options = telnetOptions(raw, ctx.target);
  } catch (error) {
    if (error instanceof TelnetOptionError) return { error: { code: 'INVALID_OPTIONS', message: `D.device.sendTelnetCommand: ${error.message}` }, result: '' };
    throw error;
  }
  // A password the driver passed (the device's is known to the run already).
  if (typeof raw.password === 'string') ctx.addSecret(raw.password);
  const endpoint = ctx.endpoint(options.port);
  if (!endpoint) return { error: { code: 'NO_ADDRESS', message: 'D.device.sendTelnetCommand: the device has no IP address or host name' }, result: '' };
  if ('refused' in endpoint) return { error: { code: endpoint.refused.code, message: `D.device.sendTelnetCommand: ${endpoint.refused.message}` }, result: '' };
  if (!ctx.takeSession()) return { error: { code: 'TOO_MANY_SESSIONS', message: 'D.device.sendTelnetCommand: the run opened as many device sessions as its limit (maxProtocolSessions) allows' }, result: '' };
  if (!ctx.takeCommand()) return { error: { code: 'TOO_MANY_COMMANDS', message: 'D.device.sendTelnetCommand: the run sent as many device commands as its limit (maxProtocolCommands) allows' }, result: '' };
  const exchange = ctx.exchange(`telnet://${endpoint.host}:${endpoint.port}`, options.command);
  const outcome = await runTelnet(options, {
    host: endpoint.host,
    port: endpoint.port,
    deadlineMs: ctx.timeLeftMs(),
    maxOutputBytes: ctx.maxOutputBytes,
    signal: ctx.signal,
  });
  const transcript = outcome.error?.code === 'OUTPUT_TOO_LARGE' ? '' : outcome.transcript;
  exchange.finish({ error: outcome.error, response: transcript, requestBytes: outcome.sentBytes, responseBytes: outcome.receivedBytes });
  return { error: outcome.error ? { ...outcome.error, message: ctx.mask(outcome.error.message) } : null, result: transcript };
};
