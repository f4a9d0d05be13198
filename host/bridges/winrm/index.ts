// D.device.sendWinRMCommand: the WS-Management shell sequence over undici.
// TODO(issue 18): not built yet.
import { notSupported, type ProtocolHandler } from '../protocols.js';

export const winrmCommand: ProtocolHandler = () => notSupported('D.device.sendWinRMCommand');
