// D.device.sendTelnetCommand.
// TODO(issue 18): not built yet.
import { notSupported, type ProtocolHandler } from '../protocols.js';

export const telnetCommand: ProtocolHandler = () => notSupported('D.device.sendTelnetCommand');
