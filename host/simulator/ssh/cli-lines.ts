// What `driverbox simulate` prints for a fixture's SSH server: its listen line and one log line
// per login or command.
import type { SshEvent } from './server.js';
import type { FixtureSsh } from './types.js';

export function sshListenLine(ssh: FixtureSsh, served: { port: number; fingerprint: string }, address = '127.0.0.1'): string {
  const exec = Object.keys(ssh.commands).length;
  const shell = Object.keys(ssh.shell.commands).length;
  return `  ssh    ssh://${address}:${served.port}   device port ${ssh.port}; ${exec} exec command${exec === 1 ? '' : 's'}, ${shell} shell command${shell === 1 ? '' : 's'} (prompt "${ssh.shell.prompt}"); host key ${served.fingerprint}`;
}

export function sshEventLine(event: SshEvent): string {
  switch (event.kind) {
    case 'login':
      return `ssh   login ${event.user}`;
    case 'login-refused':
      return `ssh   login ${event.user} refused (not the fixture's device credentials)`;
    case 'exec':
      return `ssh   exec ${JSON.stringify(event.command)} → exit ${event.exitCode}${event.known ? '' : ' (not in ssh.commands)'}`;
    case 'shell':
      return `ssh   shell ${JSON.stringify(event.command)}${event.known ? '' : ' (not in ssh.shell.commands)'}`;
  }
}
