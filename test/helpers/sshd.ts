// A real OpenSSH sshd for the SSH tests: started on 127.0.0.1 and a free port with a config,
// host key and pid file of its own in a temp folder, stopped after the file's tests. It logs
// in the throwaway user that scripts/install-test-peers.sh makes (a test run as root makes it
// when missing). Needs root (sshd checks its privilege-separation folder and reads /etc/shadow).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const SSH_TEST_USER = 'driverbox-ssh';
export const SSH_TEST_PASSWORD = 'driverbox-ssh-test-only';
const SSHD = '/usr/sbin/sshd';

export interface Sshd {
  port: number;
  user: string;
  password: string;
  /** The sshd master's pid. */
  pid: number;
  /** Connections the sshd serves now (its child processes). */
  sessions(): number;
  /** Its log so far (LogLevel VERBOSE, to stderr). */
  log(): string;
  stop(): Promise<void>;
}

const userExists = (user: string) => {
  try {
    execFileSync('id', [user], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Why the sshd tests cannot run here, or null when they can (making the test user if root). */
export function sshdUnavailable(): string | null {
  if (!existsSync(SSHD)) return `${SSHD} is not installed (scripts/install-test-peers.sh installs openssh-server)`;
  const root = process.getuid?.() === 0;
  if (!root) return `sshd tests need root (sshd's privilege separation); run scripts/install-test-peers.sh and the tests as root`;
  if (!userExists(SSH_TEST_USER)) {
    execFileSync('useradd', ['--create-home', '--shell', '/bin/bash', SSH_TEST_USER]);
    execFileSync('chpasswd', { input: `${SSH_TEST_USER}:${SSH_TEST_PASSWORD}\n` });
  }
  return null;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `extra`: more sshd_config lines (e.g. "KexAlgorithms diffie-hellman-group14-sha1"). */
export async function startSshd(extra: string[] = []): Promise<Sshd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-sshd-'));
  const hostKey = path.join(dir, 'host_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  // sshd's privilege-separation folder must exist, owned by root (Debian's unit makes it).
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'PasswordAuthentication yes',
      'KbdInteractiveAuthentication no',
      // Without PAM, sshd checks the password in /etc/shadow itself: no pam_faildelay pause on a wrong one.
      'UsePAM no',
      'PermitRootLogin no',
      `AllowUsers ${SSH_TEST_USER}`,
      'StrictModes no',
      'PrintMotd no',
      'PrintLastLog no',
      'LogLevel VERBOSE',
      ...extra,
      '',
    ].join('\n'),
  );
  execFileSync(SSHD, ['-t', '-f', config]);
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Listening once a connection is accepted.
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited at start: ${log}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() - started > 5_000) throw new Error(`sshd did not listen on ${port}: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const pid = child.pid!;
  return {
    port,
    user: SSH_TEST_USER,
    password: SSH_TEST_PASSWORD,
    pid,
    sessions() {
      try {
        return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length;
      } catch {
        return 0; // pgrep exits 1 when there is none
      }
    },
    log: () => log,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

