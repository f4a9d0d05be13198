// Where a protocol call (SSH, Telnet, SNMP, WinRM, a TFTP receiver) may connect for a port of its
// target: the port map applied, a pinned host name dialled at its address. On a simulated device
// (onlyMappedPorts) a port the simulator does not serve is refused: another port of its address
// is the host machine's own service (the developer's sshd on 127.0.0.1:22), never the device's.
import type { ProtocolModule } from '../../../runtime/protocol.js';
import type { DriverErrorCode } from '../../contract/driver-error-codes.js';
import type { RunTarget } from './target.js';

export interface Endpoint {
  host: string;
  port: number;
}

/** A call the run refuses to dial: its module answers this error in its own shape. */
export interface EndpointRefused {
  refused: { code: Extract<DriverErrorCode, 'PORT_NOT_SIMULATED'>; message: string };
}

const protocolName: Readonly<Record<ProtocolModule, string>> = {
  ssh: 'SSH',
  sshShell: 'SSH',
  telnet: 'Telnet',
  snmp: 'SNMP',
  winrm: 'WinRM',
  tftp: 'TFTP',
};

/** Null when the target has no address at all. */
export function protocolEndpoint(target: RunTarget, module: ProtocolModule, port: number, useHostname: boolean): Endpoint | EndpointRefused | null {
  const name = target.pinnedIp ?? ((useHostname && target.host) || target.ip || target.host);
  if (!name) return null;
  const mapped = target.portMap[port];
  if (target.onlyMappedPorts) {
    // The simulator sends no TFTP: its device never uploads, and a receiver open on its loopback
    // address would take files from any program of the host machine instead.
    if (module === 'tftp') {
      return refused('TFTP is not simulated: the simulated device never uploads, so the run opens no TFTP receiver for it');
    }
    if (mapped === undefined) {
      const served = Object.keys(target.portMap).join(', ') || 'none';
      return refused(`${protocolName[module]} to port ${port}: the simulated device does not serve this port (it serves ${served}); another port of its address is the host machine's own`);
    }
  }
  return { host: name, port: mapped ?? port };
}

const refused = (message: string): EndpointRefused => ({ refused: { code: 'PORT_NOT_SIMULATED', message } });
