// The device state a child's result carries (RunResult.deviceState), checked on the way back
// before anyone saves it into the shared store: only when the run asked for it, and only a
// snapshot within its bounds (readDeviceState). A state refused is left out, so nothing is
// saved from that run and the device keeps what it had; the result says why in a warning.
import { readDeviceState } from '../../device-state.js';
import type { RunRequest } from '../../contract/run-request.js';
import type { RunResult } from '../../contract/run-result.js';

export function checkReturnedState(request: RunRequest, result: RunResult): RunResult {
  const asked = request.deviceState !== undefined;
  if (!asked && result.deviceState === undefined) return result;
  const { deviceState, ...rest } = result;
  if (!asked) return rest;
  if (deviceState === undefined) return result;
  try {
    readDeviceState(deviceState, 'the device state the sandbox process returned');
    return result;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ...rest, warnings: [...(Array.isArray(rest.warnings) ? rest.warnings : []), `${why}; it was refused, so nothing of this run's cookies is kept`] };
  }
}
