// D.tftpServer.accept(options, onReady, onUpload): a TFTP receiver for the run, for drivers that
// make a device upload its configuration (copy running-config tftp …). The host opens it
// ('open': onReady(null, host, port), the address and port to give the device), then waits for
// the upload ('receive': onUpload(null, content), the file as text). Failures reach the callback
// that is waiting: onReady(error) when the receiver cannot be opened, else onUpload(error);
// error is {code, message}. Exceptions in either callback are the driver's uncaught errors.
import type { Bridge } from './bridge';
import { startProtocol } from './device-protocol';
import { raise } from './error-text';
import type { ProtocolAnswer } from './protocol';

interface TftpError {
  code: string;
  message: string;
}

const errorOf = (answer: ProtocolAnswer): TftpError => ({ code: String(answer.error!.code), message: String(answer.error!.message) });

export function createTftpServer(bridge: Bridge): { accept(options: unknown, onReady: unknown, onUpload: unknown): void } {
  return {
    accept(options, onReady, onUpload) {
      if (typeof onReady !== 'function' || typeof onUpload !== 'function') {
        throw raise(new TypeError('D.tftpServer.accept(options, onReady, onUpload): onReady and onUpload must be functions'));
      }
      const ready = onReady as (error: TftpError | null, host?: string | null, port?: number | null) => void;
      const uploaded = onUpload as (error: TftpError | null, content?: string | null) => void;
      startProtocol(
        bridge,
        0,
        'tftp',
        options,
        'D.tftpServer.accept',
        (answer) => {
          if (answer.error) return ready(errorOf(answer), null, null);
          const opened = answer.result as { host: string; port: number };
          // Waiting starts before onReady runs: the device may upload as soon as it is told to.
          startProtocol(bridge, 0, 'tftp', {}, 'D.tftpServer.accept', (upload) => {
            if (upload.error) return uploaded(errorOf(upload), null);
            uploaded(null, (upload.result as { content: string }).content);
          }, { op: 'receive' });
          ready(null, opened.host, opened.port);
        },
        { op: 'open' },
      );
    },
  };
}
