// The UDP socket the simulator's net-snmp Agent is given (its `dgramModule` option): bound to the
// port the simulator chose, and guarding the Agent's 'message' listener. net-snmp answers the
// sender's port; a datagram forged from port 0 (no real sender has it) would make that answer's
// dgram.send throw, so such a datagram is dropped before net-snmp reads it. Whatever else throws
// while one datagram is handled drops that datagram, never the process.
import dgram from 'node:dgram';

type MessageListener = (message: Buffer, from: dgram.RemoteInfo) => void;

/**
 * net-snmp's agent binds the port it is given (0 meaning 161): these sockets bind `port` instead
 * (0: a free one). `dropped` hears of each datagram a throw dropped.
 */
export function agentSockets(port: number, dropped: (error: unknown, from: dgram.RemoteInfo) => void): { createSocket(type: 'udp4' | 'udp6'): dgram.Socket } {
  return {
    createSocket(type) {
      const socket = dgram.createSocket(type);
      const bind = socket.bind.bind(socket) as (port: number, address?: string) => dgram.Socket;
      (socket as unknown as { bind: (p: number, a?: string) => dgram.Socket }).bind = (_p, address) => bind(port, address);
      const on = socket.on.bind(socket) as (event: string, listener: (...args: never[]) => void) => dgram.Socket;
      (socket as { on: unknown }).on = (event: string, listener: (...args: never[]) => void) => {
        if (event !== 'message') return on(event, listener);
        const handle = listener as unknown as MessageListener;
        return on('message', ((message: Buffer, from: dgram.RemoteInfo) => {
          if (from.port === 0) return; // forged: an answer to it cannot be sent
          try {
            handle(message, from);
          } catch (error) {
            dropped(error, from);
          }
        }) as MessageListener);
      };
      return socket;
    },
  };
}
