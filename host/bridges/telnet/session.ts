// One Telnet call on node:net, as the platform's telnet-client 0.9 drives it: connect, write
// onConnectCommand, answer option negotiation, answer the login and password prompts, send
// the command (at once, or once the shell prompt is seen), and keep everything received until
// the socket has been idle for `timeoutMs` or the device closes it. Prompts are looked for in
// each received chunk, as the library does (prompt-watch.ts: a driver's regular expression off
// the host's loop, under the run's pattern budget).
import net from 'node:net';
import { ByteCollector } from '../core/device-text/byte-collector.js';
import { passedThrough } from '../../contract/driver-error-codes.js';
import type { TelnetError } from './errors.js';
import { Negotiator } from './negotiation.js';
import type { TelnetOptions } from './options.js';
import { TelnetPromptWatch } from './prompt-watch.js';

/** Login and password prompts answered per call: a device that asks again and again gets silence. */
const MAX_LOGIN_ANSWERS = 3;

export interface TelnetBounds {
  host: string;
  /** The endpoint's port (the port map applied); options.port is the device's. */
  port: number;
  /** Time the whole call may take (what is left of the run), ms. */
  deadlineMs: number;
  maxOutputBytes: number;
  /** The run's abort signal (the run's pattern budget is found by it). */
  signal: AbortSignal;
}

export interface TelnetOutcome {
  /** Everything received, raw (negotiation bytes included), UTF-8. */
  transcript: string;
  receivedBytes: number;
  sentBytes: number;
  /** Null when the call ended normally (idle timeout or the device closed). */
  error: TelnetError | null;
}

export function runTelnet(options: TelnetOptions, bounds: TelnetBounds): Promise<TelnetOutcome> {
  return new Promise((resolve) => {
    // One growing buffer, not one per packet: a device dripping bytes costs its bytes, not a Buffer each.
    const received = new ByteCollector();
    let receivedBytes = 0;
    let sentBytes = 0;
    let commandSent = false;
    let logins = 0;
    let finished = false;
    const negotiator = new Negotiator();
    // No Nagle: a login answer or a command is one small write the device is waiting for.
    const socket = net.connect({ host: bounds.host, port: bounds.port, noDelay: true });

    const finish = (error: TelnetOutcome['error']) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      clearTimeout(connectTimer);
      bounds.signal.removeEventListener('abort', onAbort);
      watch.stop();
      socket.destroy();
      resolve({ transcript: received.bytes().toString('utf8'), receivedBytes, sentBytes, error });
    };
    const write = (text: string | Buffer) => {
      if (finished || !socket.writable) return;
      const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
      sentBytes += bytes.length;
      socket.write(bytes);
    };
    const sendCommand = () => {
      if (commandSent) return;
      commandSent = true;
      watch.stop();
      write(options.command + '\r\n');
    };

    const watch = new TelnetPromptWatch(
      bounds.signal,
      { shell: options.shellPrompt, login: options.loginPrompt, password: options.passwordPrompt },
      (kind) => {
        if (kind === 'shell') sendCommand();
        else answerLogin(kind === 'login' ? options.username : options.password);
      },
      (error) => finish({ code: error.code, message: error.message }),
    );
    const deadline = setTimeout(() => finish({ code: 'TIMEOUT', message: `the run's deadline came before the Telnet session on ${bounds.host}:${bounds.port} ended` }), Math.max(0, bounds.deadlineMs));
    const connectTimer = setTimeout(
      () => finish({ code: 'ETIMEDOUT', message: `connect ETIMEDOUT ${bounds.host}:${bounds.port} (no connection within the ${options.timeoutMs} ms timeout)` }),
      options.timeoutMs,
    );
    const onAbort = () => finish({ code: 'ABORTED', message: 'the run ended before the Telnet session did' });
    if (bounds.signal.aborted) return onAbort();
    bounds.signal.addEventListener('abort', onAbort, { once: true });

    socket.once('connect', () => {
      clearTimeout(connectTimer);
      // The socket's idle timeout, as telnet-client sets it: reads and writes both count.
      socket.setTimeout(options.timeoutMs, () => finish(null));
      if (options.onConnectCommand !== null) write(options.onConnectCommand);
      if (!options.negotiationMandatory) sendCommand();
    });
    socket.on('data', (chunk: Buffer) => {
      receivedBytes += chunk.length;
      if (receivedBytes > bounds.maxOutputBytes) {
        return finish({ code: 'OUTPUT_TOO_LARGE', message: `the Telnet output is larger than the limit of ${bounds.maxOutputBytes} bytes` });
      }
      received.append(chunk);
      const { text, reply } = negotiator.read(chunk);
      if (reply.length > 0) write(reply);
      if (commandSent || text.length === 0) return;
      watch.push(text.toString('utf8'));
    });
    const answerLogin = (value: string) => {
      if (++logins > MAX_LOGIN_ANSWERS) return;
      write(value + '\n'); // telnet-client's output record separator
    };
    socket.on('error', (error: NodeJS.ErrnoException) => finish({ code: typeof error.code === 'string' ? passedThrough(error.code) : 'NETWORK_ERROR', message: error.message }));
    socket.on('close', () => finish(null));
  });
}
