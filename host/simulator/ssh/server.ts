// The simulated device's SSH server (ssh2's Server): a host key made at start, password (and
// keyboard-interactive) login with the fixture's device credentials, exec commands answered
// from the fixture (an unknown one as a shell would: "command not found", exit 127), and the
// interactive shell of shell-session.ts. Loopback only.
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import ssh2, { type Connection } from 'ssh2';
import { serveShell } from './shell-session.js';
import type { FixtureSsh } from './types.js';

const { Server, utils } = ssh2;

/** One thing the server did, for the simulator's log. */
export interface SshEvent {
  kind: 'login' | 'login-refused' | 'exec' | 'shell';
  user: string;
  /** The command line (exec, shell); null for logins. */
  command: string | null;
  /** Whether the fixture knew the command (exec, shell). */
  known: boolean;
  exitCode: number | null;
}

export interface SimulatedSshServer {
  port: number;
  /** "SHA256:…" of the host key made at start. */
  fingerprint: string;
  close(): Promise<void>;
}

const notFound = (command: string) => `bash: ${command.trim().split(/\s+/)[0]}: command not found`;

/**
 * A fresh ed25519 host key. ssh2's generator writes about 1 key in 250 with its public half one
 * byte short (a leading zero dropped), which ssh2 itself then cannot parse: such keys are drawn again.
 */
function hostKey(): { keys: { private: string; public: string }; publicBlob: { getPublicSSH(): Buffer } } {
  for (let attempt = 1; ; attempt++) {
    const keys = utils.generateKeyPairSync('ed25519');
    const parsed = utils.parseKey(keys.public);
    const publicBlob = Array.isArray(parsed) ? parsed[0] : parsed;
    if (!(publicBlob instanceof Error) && !(utils.parseKey(keys.private) instanceof Error)) return { keys, publicBlob: publicBlob as { getPublicSSH(): Buffer } };
    if (attempt === 20) throw new Error('could not make an SSH host key that ssh2 parses');
  }
}

export async function startSshServer(ssh: FixtureSsh, options: { port: number; host: string; onEvent?: (event: SshEvent) => void }): Promise<SimulatedSshServer> {
  const { keys, publicBlob } = hostKey();
  const fingerprint = `SHA256:${createHash('sha256').update(publicBlob.getPublicSSH()).digest('base64').replace(/=+$/, '')}`;
  const connections = new Set<Connection>();
  const timers = new Set<NodeJS.Timeout>();
  const emit = (event: SshEvent) => {
    try {
      options.onEvent?.(event);
    } catch (error) {
      process.emitWarning(`simulator SSH onEvent threw: ${(error as Error).message}`);
    }
  };
  const allowed = (user: string, password: string) => ssh.credentials === null || (user === ssh.credentials.username && password === ssh.credentials.password);

  const server = new Server({ hostKeys: [keys.private] }, (client) => {
    connections.add(client);
    (client as unknown as { setNoDelay(on: boolean): void }).setNoDelay(true); // no Nagle delay on small answers
    let user = '';
    client.on('close', () => connections.delete(client));
    client.on('error', () => client.end());
    client.on('authentication', (auth) => {
      user = auth.username;
      if (auth.method === 'password') {
        if (allowed(auth.username, auth.password)) return auth.accept();
        emit({ kind: 'login-refused', user, command: null, known: false, exitCode: null });
        return auth.reject(['password', 'keyboard-interactive']);
      }
      if (auth.method === 'keyboard-interactive') {
        return auth.prompt([{ prompt: 'Password: ', echo: false }], (answers) => {
          if (allowed(auth.username, answers[0] ?? '')) return auth.accept();
          emit({ kind: 'login-refused', user, command: null, known: false, exitCode: null });
          auth.reject(['password', 'keyboard-interactive']);
        });
      }
      auth.reject(['password', 'keyboard-interactive']);
    });
    client.on('ready', () => {
      emit({ kind: 'login', user, command: null, known: true, exitCode: null });
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('pty', (accept) => accept?.());
        session.on('window-change', (accept) => accept?.());
        session.on('env', (accept) => accept?.());
        session.on('exec', (accept, _reject, info) => {
          const stream = accept();
          const known = ssh.commands[info.command.trim()];
          const answer = known ?? { stdout: '', stderr: notFound(info.command), exitCode: 127, delayMs: 0 };
          emit({ kind: 'exec', user, command: info.command, known: known !== undefined, exitCode: answer.exitCode });
          const send = () => {
            if (answer.stdout) stream.write(answer.stdout.endsWith('\n') ? answer.stdout : `${answer.stdout}\n`);
            if (answer.stderr) stream.stderr.write(answer.stderr.endsWith('\n') ? answer.stderr : `${answer.stderr}\n`);
            stream.exit(answer.exitCode);
            stream.end();
          };
          if (answer.delayMs === 0) return send();
          const timer = setTimeout(() => {
            timers.delete(timer);
            send();
          }, answer.delayMs);
          timers.add(timer);
        });
        session.on('shell', (accept) => {
          const stream = accept();
          serveShell(stream, ssh.shell, (line, known) => emit({ kind: 'shell', user, command: line, known, exitCode: null }), timers);
        });
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the port is in use' : error.code === 'EACCES' ? 'not allowed (ports below 1024 need privileges)' : error.message;
      reject(Object.assign(new Error(`cannot serve ssh on ${options.host}:${options.port}: ${why}`), { code: error.code }));
    };
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    fingerprint,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const client of connections) client.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
