// D.device.sendWinRMCommand (host: host/bridges/winrm/). The driver's callback gets ONE object,
// as on the platform: { outcome: {commandId, shellId, stdout, stderr, exitCode}, error: null }
// on success, { outcome: null, error } on a failure. An HTTP error's code is the status (a
// number); a non-zero exit status has no code (drivers read its message).
import type { Bridge } from './bridge';
import { startProtocol } from './device-protocol';
import { raise } from './error-text';
import { SavedError } from './intrinsics';

export function createWinrm(bridge: Bridge, target: number, name: string) {
  return {
    sendWinRMCommand(options: unknown, callback: (output: unknown) => void): void {
      const fn = `${name}.sendWinRMCommand`;
      if (typeof callback !== 'function') throw raise(new TypeError(`${fn}: a callback(output) is required`));
      startProtocol(bridge, target, 'winrm', options, fn, (answer) => {
        if (!answer.error) return callback({ outcome: answer.result, error: null });
        const { code, message, status } = answer.error;
        const error = raise(new SavedError(message)) as Error & { code?: unknown };
        if (typeof status === 'number') error.code = status;
        else if (code !== 'COMMAND_FAILED') error.code = code;
        callback({ outcome: null, error });
      });
    },
  };
}
