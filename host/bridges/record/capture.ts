// What a run with `record` or `replay` changes around it: the device it runs against, the
// wire and sessions its RunNetwork uses, and what happens once it has finished. A run with
// neither gets no capture at all (engine/host.ts), so it pays nothing for this.
import type { DeviceSpec } from '../../contract/device.js';
import type { RunResult } from '../../contract/run-result.js';
import type { SessionSource } from '../http/sessions.js';
import type { NetworkWire } from './wire.js';
import type { RecordingFile } from '../../contract/recording.js';
import { Recorder, type RecordingMeta } from './recorder.js';
import { Replayer, type ReplayBounds } from './replayer.js';

export interface RunCapture {
  device: DeviceSpec;
  wire: NetworkWire;
  /** The sessions of the run's targets; null: the host's (cookie jars and connections kept across runs). */
  sessions: SessionSource | null;
  /** The run finished: the recording is written, or the replay's warnings added. */
  finish(result: RunResult): Promise<RunResult>;
  /** The run never finished (the sandbox failed, the host closed): nothing is written. */
  abandon(): Promise<void>;
}

/** Records the run into `file`, which is reserved now: RECORD_UNWRITABLE before the run if it cannot be. */
export async function recordCapture(file: string, meta: RecordingMeta): Promise<RunCapture> {
  const recorder = await Recorder.open(file, meta);
  return {
    device: meta.device,
    wire: recorder.wire,
    sessions: null,
    async finish(result) {
      const failed = await recorder.finish(result);
      return failed ? { ...result, warnings: [...result.warnings, failed] } : result;
    },
    abandon: () => recorder.discard(),
  };
}

/** Answers the run from `recording`; the caller's device only lends its credentials (see Replayer.device). */
export function replayCapture(recording: RecordingFile, given: DeviceSpec | undefined, bounds: ReplayBounds): RunCapture {
  const replayer = new Replayer(recording, bounds);
  return {
    device: replayer.device(given),
    wire: replayer.wire,
    sessions: replayer.sessions,
    finish: (result) => {
      const warnings = replayer.warnings();
      return Promise.resolve(warnings.length ? { ...result, warnings: [...result.warnings, ...warnings] } : result);
    },
    abandon: () => Promise.resolve(),
  };
}
