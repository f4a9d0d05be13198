// D.device.createSNMPSession's get / walk / set on net-snmp.
// TODO(issue 18): not built yet.
import { notSupported, type ProtocolHandler } from '../protocols.js';

export const snmpRequest: ProtocolHandler = () => notSupported('D.device.createSNMPSession');
