// The one interface the agent's pieces share to execute driver runs: the scheduler calls it,
// and either an in-process Host (createHost) or the supervised sandbox process provides it.
import type { RunRequest } from '../host.js';
import type { RunResult } from '../run-result.js';

export interface RunExecutor {
  run(request: RunRequest): Promise<RunResult>;
  close(): Promise<void>;
}
