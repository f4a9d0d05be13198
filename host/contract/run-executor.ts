// The one interface that executes driver runs for the agent's scheduler and the API's execute action;
// an in-process Host (createHost) or the supervised sandbox process (sandbox-process/) provides it.
import type { RunRequest } from './run-request.js';
import type { RunResult } from './run-result.js';

export interface RunExecutor {
  run(request: RunRequest): Promise<RunResult>;
  close(): Promise<void>;
}
