// Which handler serves which protocol module of D.device (SSH, Telnet, SNMP, WinRM, TFTP), and
// the method its exchanges show in the transcript. Each handler loads on its module's first call.
// The handlers' contract (ProtocolContext, ProtocolHandler) is core/protocol-handler.ts.
import type { ProtocolModule } from '../../runtime/protocol.js';
import type { ProtocolHandler } from './core/protocol-handler.js';

/**
 * A handler whose module loads on its first call: every sandbox thread does its runs' network,
 * and one that never dials SSH need not load ssh2 (nor start slower for it).
 */
function onFirstCall<M>(load: () => Promise<M>, pick: (module: M) => ProtocolHandler): ProtocolHandler {
  let handler: Promise<ProtocolHandler> | null = null;
  return (ctx, options) => (handler ??= load().then(pick)).then((serve) => serve(ctx, options));
}

export const protocolHandlers: Readonly<Record<ProtocolModule, ProtocolHandler>> = {
  ssh: onFirstCall(() => import('./ssh/index.js'), (m) => m.sshCommand),
  sshShell: onFirstCall(() => import('./ssh/index.js'), (m) => m.sshShell),
  telnet: onFirstCall(() => import('./telnet/index.js'), (m) => m.telnetCommand),
  snmp: onFirstCall(() => import('./snmp/index.js'), (m) => m.snmpRequest),
  winrm: onFirstCall(() => import('./winrm/index.js'), (m) => m.winrmCommand),
  tftp: onFirstCall(() => import('./tftp/index.js'), (m) => m.tftpRequest),
};

/** The method a module's exchanges show in the transcript. */
export const transcriptMethod: Readonly<Record<ProtocolModule, string>> = {
  ssh: 'SSH',
  sshShell: 'SSH-SHELL',
  telnet: 'TELNET',
  snmp: 'SNMP',
  winrm: 'WINRM',
  tftp: 'TFTP',
};
