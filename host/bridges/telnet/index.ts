// D.device.sendTelnetCommand: the driver's options checked (options.ts), one connection to the
// device's endpoint (session.ts), the run's bounds, secrets and transcript applied here.
// The answer: { error: null, result: transcript }, or an error (with the transcript so far as
// result) that the runtime hands the driver as callback(transcript, error).
import type { ProtocolHandler } from '../core/protocol-handler.js';
import { telnetRefusal, TelnetOptionError } from './errors.js';
import { telnetOptions, type TelnetOptions } from './options.js';
import { runTelnet } from './session.js';

export const telnetCommand: ProtocolHandler = async (ctx, raw) => {
  let options: TelnetOptions;
  try {
    options = telnetOptions(raw, ctx.target);
  } catch (error) {
    if (error instanceof TelnetOptionError) return telnetRefusal('INVALID_OPTIONS', error.message);
    throw error;
  }
  // A password the driver passed (the device's is known to the run already).
  if (typeof raw.password === 'string') ctx.addSecret(raw.password);
  const endpoint = ctx.endpoint(options.port);
  if (!endpoint) return telnetRefusal('NO_ADDRESS', 'the device has no IP address or host name');
  if ('refused' in endpoint) return telnetRefusal(endpoint.refused.code, endpoint.refused.message);
  if (!ctx.takeSession()) return telnetRefusal('TOO_MANY_SESSIONS', 'the run opened as many device sessions as its limit (maxProtocolSessions) allows');
  if (!ctx.takeCommand()) return telnetRefusal('TOO_MANY_COMMANDS', 'the run sent as many device commands as its limit (maxProtocolCommands) allows');
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
