// Debian's inetutils telnetd, started by a test: a node:net listener on 127.0.0.1 hands each
// connection to a fresh `telnetd -E <login script>` (as inetd would: the socket is its stdin
// and stdout), so the client meets real option negotiation, a real pty and a real shell. The
// login script stands in for /bin/login (no system user needed): it asks a user name and a
// password, and starts /bin/sh with the prompt "box# " when they match.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const TELNETD = '/usr/sbin/telnetd';
export const hasTelnetd = existsSync(TELNETD);

export interface RealTelnetd {
  port: number;
  close(): Promise<void>;
}

export async function startTelnetd(username: string, password: string): Promise<RealTelnetd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-telnetd-'));
  const login = path.join(dir, 'login.sh');
  writeFileSync(
    login,
    [
      '#!/bin/sh',
      "printf 'box login: '",
      'read user',
      // echo off before the prompt, as /bin/login does: a client may answer the prompt at once
      'stty -echo 2>/dev/null',
      "printf 'Password: '",
      'read pass; stty echo 2>/dev/null',
      "printf '\\r\\n'",
      `if [ "$user" = '${username}' ] && [ "$pass" = '${password}' ]; then PS1='box# ' exec /bin/sh -i; fi`,
      "printf 'Login incorrect\\r\\n'",
      // telnetd drops what is still in the pty when its child exits: wait for it to pass the
      // answer on (/bin/login itself waits seconds after a failure)
      'sleep 0.3',
      'exit 1',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const children = new Set<ChildProcess>();
  const server = net.createServer({ pauseOnConnect: true }, (socket) => {
    const child = spawn(TELNETD, ['-h', '-E', login], { stdio: [socket, socket, 'ignore'] });
    children.add(child);
    child.on('exit', () => {
      children.delete(child);
      socket.destroy();
    });
    child.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const child of children) child.kill('SIGKILL');
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
