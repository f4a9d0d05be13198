// D.device.sendSSHCommand (exec) and sendSSHCommands (shell sequence) on ssh2.
// TODO(issue 18): not built yet.
import { notSupported, type ProtocolHandler } from '../protocols.js';

export const sshCommand: ProtocolHandler = () => notSupported('D.device.sendSSHCommand');
export const sshShell: ProtocolHandler = () => notSupported('D.device.sendSSHCommands');
