// The driverbox extension API (not part of the monitoring Public API v1, which has no runs): the
// run records the store keeps, with their logs, warnings and HTTP exchanges, for the web console
// and any client. Under its own prefix, behind the same X-Api-Key as the Public API, with the
// same error body. See docs/reference/console.md#the-driverbox-extension-api.
//
//   GET /driverbox-api/v1/agent/{agent_id}/run            the runs, newest (or failures) first, paged by cursor (or offset)
//   GET /driverbox-api/v1/agent/{agent_id}/run/{run_id}   one run with its log and exchanges
//   POST /driverbox-api/v1/agent/{agent_id}/device/{device_id}/trial-run   edited code, run, not stored (trial-run-routes.ts)
//   GET /driverbox-api/v1/agent/{agent_id}/schedule        the agent's scheduler, per association (schedule-routes.ts)
//   GET /driverbox-api/v1/agent/{agent_id}/device/{device_id}/table   a device's tables (table-routes.ts)
//   GET /driverbox-api/v1/agent/{agent_id}[/device/{device_id}]/health   each association's health, failing first (health-routes.ts)
//   GET, POST /driverbox-api/v1/simulated-device[/{name}/trial-run]   the shipped fixtures as trial targets (simulated-devices.ts)
import type { FastifyInstance } from 'fastify';
import type { RunDetail, RunListAnswer, RunSummary, TrialRunAnswer, TrialRunRequest } from './run-records.js';
import type { RunRow } from '../../store/runs/runs.js';
import { getRun } from '../../store/runs/runs.js';
import { countRuns, listRuns, runDriverNames, runListKey } from '../../store/runs/run-list.js';
import { decodeRunCursor, encodeRunCursor, RUN_CURSOR_PATTERN } from './run-cursor.js';
import type { Store } from '../../store/store.js';
import type { RunExecutor } from '../../contract/run-executor.js';
import { registerTrialRun } from './trial-run-routes.js';
import { registerSchedule, type ScheduleSource } from './schedule-routes.js';
import { registerDeviceTables } from './table-routes.js';
import { registerHealth } from './health-routes.js';
import { registerSimulatedDevices } from './simulated-devices.js';
import { packagePath } from '../../package-path.js';
import { formatApiTime } from '../../store/db/time.js';
import { requireAgent } from '../monitoring/access.js';
import { invalid, notFound } from '../monitoring/api-error.js';
import { apiKeyCheck } from '../monitoring/auth.js';
import { noSuchOperation } from '../monitoring/error-handler.js';
import { page } from '../monitoring/query.js';
import { idParams, pagingQuery } from '../monitoring/route-schema.js';

export const DRIVERBOX_API_PREFIX = '/driverbox-api/v1';
export type { RunDetail, RunListAnswer, RunSummary, TrialRunAnswer, TrialRunRequest };
export type { DeviceTable, HealthAnswer, HealthEntry, ScheduleAnswer, ScheduleEntry, SimulatedDeviceInfo } from './run-records.js';

function summary(run: RunRow): RunSummary {
  return {
    id: run.id,
    device_id: run.deviceId,
    custom_driver_id: run.customDriverId,
    association_id: run.associationId,
    driver: run.driverName,
    action: run.action,
    started: formatApiTime(run.started),
    elapsed_ms: run.elapsedMs,
    outcome: run.outcome,
    error_type: run.errorType,
    error_message: run.errorMessage,
    limit_exceeded: run.limitExceeded,
    variable_count: run.variableCount,
    table_count: run.tableCount,
    log_count: run.log.length,
    warning_count: run.warnings.length,
    http_count: run.http.length,
  };
}

interface ListQuery {
  device_id?: number;
  outcome?: 'success' | 'failure';
  driver?: string;
  order?: 'newest' | 'failures_first';
  page_size?: number;
  page_number?: number;
  cursor?: string;
}

export interface DriverboxApiOptions {
  store: Store;
  apiKeys: readonly string[];
  /** Runs the trial runs of the console's editor; without it they answer 503. */
  host?: RunExecutor;
  /** The operator's list of external hosts for API drivers (as for the execute action). */
  externalHosts?: readonly string[];
  /** The agent's scheduler, read-only (`driverbox agent`); without it the schedule says there is none. */
  schedule?: ScheduleSource;
  /** The folder of the simulated devices offered for trial runs (default: the package's drivers-examples/; null: none). */
  simulatedDevices?: string | null;
}

/** A Fastify plugin for the API's app (MonitoringApiOptions.extraRoutes). */
export async function driverboxApiRoutes(app: FastifyInstance, options: DriverboxApiOptions): Promise<void> {
  const { store } = options;
  await app.register(
    async (api) => {
      api.addHook('onRequest', apiKeyCheck(options.apiKeys));
      api.setNotFoundHandler(noSuchOperation);

      api.get<{ Params: { agent_id: number }; Querystring: ListQuery }>('/agent/:agent_id/run', {
        schema: {
          params: idParams('agent_id'),
          querystring: {
            type: 'object',
            properties: {
              ...pagingQuery(500, 50),
              device_id: { type: 'integer', minimum: 0, maximum: 2147483647 },
              outcome: { type: 'string', enum: ['success', 'failure'] },
              driver: { type: 'string' },
              order: { type: 'string', enum: ['newest', 'failures_first'], default: 'newest' },
              cursor: { type: 'string', pattern: RUN_CURSOR_PATTERN, description: "the page before's next_cursor: the runs after its last one" },
            },
          },
        },
        handler: async (request): Promise<RunListAnswer> => {
          const agentId = request.params.agent_id;
          await requireAgent(store, agentId);
          const q = request.query;
          const filters = { agentId, deviceId: q.device_id, outcome: q.outcome, driverName: q.driver };
          const { limit, offset } = page(q, 50, 500);
          const failuresFirst = q.order === 'failures_first';
          if (q.cursor !== undefined && offset > 0) throw invalid(['query', 'cursor'], 'goes with page_number 0 (the cursor says where the page starts)');
          const after = q.cursor === undefined ? undefined : decodeRunCursor(q.cursor, failuresFirst);
          // One more than the page: whether a next page exists, so next_cursor is null at the end.
          const [rows, total, drivers] = await Promise.all([
            listRuns(store, { ...filters, failuresFirst, limit: limit + 1, offset, after }),
            countRuns(store, filters),
            runDriverNames(store, agentId),
          ]);
          const runs = rows.slice(0, limit);
          const last = runs.at(-1);
          const next_cursor = rows.length > limit && last ? encodeRunCursor(runListKey(last), failuresFirst) : null;
          return { total, runs: runs.map(summary), drivers, next_cursor };
        },
      });

      api.get<{ Params: { agent_id: number; run_id: number } }>('/agent/:agent_id/run/:run_id', {
        schema: { params: idParams('agent_id', 'run_id') },
        handler: async (request): Promise<RunDetail> => {
          const { agent_id: agentId, run_id: runId } = request.params;
          await requireAgent(store, agentId);
          const run = await getRun(store, runId);
          if (!run || run.agentId !== agentId || (run.outcome as string) === 'pending') throw notFound('run', runId);
          return { ...summary(run), log: run.log, warnings: run.warnings, http: run.http };
        },
      });

      registerTrialRun(api, options);
      registerSchedule(api, options);
      registerDeviceTables(api, options);
      registerHealth(api, options);
      registerSimulatedDevices(api, { ...options, simulatedDevices: options.simulatedDevices === undefined ? packagePath('drivers-examples') : options.simulatedDevices });
    },
    { prefix: DRIVERBOX_API_PREFIX },
  );
}
