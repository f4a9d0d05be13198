// D.device.sendSSHCommand (exec) and sendSSHCommands (shell sequence) on ssh2.
// options.ts checks the driver's options; call.ts bounds one call (address, session, timer,
// the run's end, transcript); connect.ts dials; exec.ts and shell.ts speak; errors.ts shapes
// the errors. docs/reference/driver-api/ssh.md.
import type { ProtocolAnswer, ProtocolHandler } from '../core/protocol-handler.js';
import { refusal, sshAnswer } from './errors.js';
import { runExec } from './exec.js';
import { runShell } from './shell.js';
import { readExecOptions, readShellOptions, SshOptionError } from './options.js';

function invalidOptions(error: unknown, fn: string): ProtocolAnswer {
  if (error instanceof SshOptionError) return sshAnswer(refusal('INVALID_OPTIONS', `${fn}: ${error.message}`));
  throw error;
}

export const sshCommand: ProtocolHandler = async (ctx, options) => {
  let checked;
  try {
    checked = readExecOptions(options, ctx.target);
  } catch (error) {
    return invalidOptions(error, 'sendSSHCommand');
  }
  return runExec(ctx, checked);
};

export const sshShell: ProtocolHandler = async (ctx, options) => {
  let checked;
  try {
    checked = readShellOptions(options, ctx.target);
  } catch (error) {
    return invalidOptions(error, 'sendSSHCommands');
  }
  return runShell(ctx, checked);
};
