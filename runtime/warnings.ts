// Warnings are things the driver got away with (a truncated value, a second D.success):
// the run goes on, and the host lists them in the RunResult.
import type { Bridge } from './bridge';

export type Warn = (message: string) => void;

export function createWarn(bridge: Bridge): Warn {
  return (message) => {
    bridge.call('warn', message);
  };
}
