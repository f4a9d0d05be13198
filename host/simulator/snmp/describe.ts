// How `driverbox simulate` shows the SNMP agent: the line saying what it serves, and one line
// per request it answers.
import type { SnmpRequestLog } from './agent.js';
import type { SnmpFixture } from './fixture.js';

let seq = 0;

export function snmpServedLine(snmp: SnmpFixture, port: number, address = '127.0.0.1'): string {
  const access = [`community "${snmp.community}"${snmp.writeCommunity ? ' (read-only)' : ''}`];
  if (snmp.writeCommunity) access.push(`write community "${snmp.writeCommunity}"`);
  if (snmp.v3Users.length) access.push(`v3 user${snmp.v3Users.length > 1 ? 's' : ''} ${snmp.v3Users.map((u) => `${u.name} (${u.level})`).join(', ')}`);
  const writable = snmp.values.filter((v) => v.writable).length;
  return `  snmp   udp://${address}:${port}   device port ${snmp.port}; ${access.join(', ')}; ${snmp.values.length} OIDs${writable ? `, ${writable} writable` : ''}`;
}

export function snmpRequestLine(request: SnmpRequestLog): string {
  const shown = request.oids.slice(0, 3).join(' ') + (request.oids.length > 3 ? ` … (${request.oids.length} OIDs)` : '');
  return `#s${++seq} snmp  ${request.pdu} ${shown}  by ${request.by}`;
}
