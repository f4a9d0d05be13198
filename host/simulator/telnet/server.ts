// A simulated Telnet device on node:net: sends its negotiation and banner, asks for a login
// (username, password checked against the fixture's credentials), then answers each command
// line with its output and the shell prompt. The client's negotiation answers are logged, so a
// test sees what the client said to DO / WILL.
import net from 'node:net';
import type { TelnetFixture } from './types.js';

const IAC = 255;
const MAX_LINE = 64 * 1024;
const MAX_LOGIN_TRIES = 3;

export interface TelnetEvent {
  kind: 'connect' | 'negotiation' | 'login' | 'login-failed' | 'command' | 'close';
  /** The command line, the user name, or the negotiation bytes (hex). */
  detail: string;
}

export interface TelnetSimulator {
  readonly port: number;
  /** Everything the connections did, in order (a live list). */
  readonly events: TelnetEvent[];
  close(): Promise<void>;
}

const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

export async function startTelnetSimulator(fixture: TelnetFixture, host = '127.0.0.1', port = 0): Promise<TelnetSimulator> {
  const events: TelnetEvent[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (socket) => serve(socket));

  function serve(socket: net.Socket): void {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      events.push({ kind: 'close', detail: '' });
    });
    socket.on('error', () => socket.destroy());
    events.push({ kind: 'connect', detail: '' });
    let stage: 'user' | 'password' | 'shell' = fixture.loginPrompt === null ? 'shell' : 'user';
    let user = '';
    let tries = 0;
    let line: number[] = [];
    let skip: 'lf' | null = null;
    let iac: number[] | null = null; // a command being read
    let queue = Promise.resolve();
    const send = (text: string | Buffer) => {
      if (!socket.destroyed) socket.write(text);
    };
    send(Buffer.concat([fixture.negotiation, Buffer.from(crlf(fixture.banner), 'utf8'), Buffer.from(stage === 'user' ? fixture.loginPrompt! : fixture.shellPrompt, 'utf8')]));

    const onLine = async (text: string) => {
      if (stage === 'user') {
        user = text;
        stage = 'password';
        return send(fixture.passwordPrompt);
      }
      if (stage === 'password') {
        const ok = fixture.credentials !== null && user === fixture.credentials.username && text === fixture.credentials.password;
        events.push({ kind: ok ? 'login' : 'login-failed', detail: user });
        if (ok) {
          stage = 'shell';
          return send('\r\n' + fixture.shellPrompt);
        }
        send('\r\nLogin incorrect\r\n');
        if (++tries >= MAX_LOGIN_TRIES) return void socket.end();
        stage = 'user';
        return send(fixture.loginPrompt!);
      }
      events.push({ kind: 'command', detail: text });
      if (fixture.echo) send(text + '\r\n');
      const known = fixture.commands.get(text);
      if (known?.delayMs) await new Promise((resolve) => setTimeout(resolve, known.delayMs));
      const output = known ? known.output : text === '' ? '' : fixture.unknownCommand.replaceAll('{command}', text);
      if (output !== '') send(crlf(output.endsWith('\n') ? output : output + '\n'));
      if (known?.close) return void socket.end();
      send(fixture.shellPrompt);
    };

    socket.on('data', (chunk: Buffer) => {
      for (const byte of chunk) {
        if (iac) {
          iac.push(byte);
          // IAC verb option (3 bytes); IAC IAC is a data 255; other two-byte commands end here.
          if (iac.length === 2 && byte === IAC) iac = null;
          else if (iac.length === 2 && (byte < 251 || byte > 254)) iac = null;
          else if (iac.length === 3) {
            events.push({ kind: 'negotiation', detail: Buffer.from(iac).toString('hex') });
            iac = null;
          }
          continue;
        }
        if (byte === IAC) {
          iac = [IAC];
          continue;
        }
        if (skip === 'lf' && (byte === 10 || byte === 0)) {
          skip = null;
          continue;
        }
        skip = null;
        if (byte === 13 || byte === 10) {
          if (byte === 13) skip = 'lf';
          const text = Buffer.from(line).toString('utf8');
          line = [];
          queue = queue.then(() => onLine(text));
          continue;
        }
        line.push(byte);
        if (line.length > MAX_LINE) return void socket.destroy();
      }
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    events,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
