// The driverbox extension API's trial run, for the console's driver editor: runs code as sent
// (not the library's stored version) in the sandbox against a device of the store (its address,
// port map and saved credentials, as a scheduled run has them), and answers everything the run
// reported at once: variables, tables, log, warnings and the HTTP exchanges with their headers
// and bodies. Nothing is stored: no variables, no run record, no association timestamp. Secrets
// of the device are masked in the answer as in a stored run.
//
//   POST /driverbox-api/v1/agent/{agent_id}/device/{device_id}/trial-run
//
// The steps (the body's schema, the driver, its defaults and external hosts, the run and its
// answer) are exported for the trial against a simulated device (simulated-devices.ts).
import type { FastifyInstance } from 'fastify';
import type { RunExecutor } from '../../contract/run-executor.js';
import { externalHostsFor } from '../../agent/external-hosts.js';
import { DriverboxError } from '../../contract/errors.js';
import { findAssociation, runParameters } from '../../store/drivers/associations.js';
import { getCustomDriver, MAX_DRIVER_SOURCE_CHARS, type CustomDriverRow } from '../../store/drivers/custom-drivers.js';
import { deviceSpecOf } from '../../store/runs/run-request.js';
import { deviceSecrets, maskFor } from '../../store/runs/run-secrets.js';
import type { Store } from '../../store/store.js';
import { requireDevice } from '../monitoring/access.js';
import { ApiError, notFound } from '../monitoring/api-error.js';
import { idParams } from '../monitoring/route-schema.js';
import type { TrialRunAnswer, TrialRunRequest } from './run-records.js';
import type { RunRequest } from '../../contract/run-request.js';
import type { SecretMask } from '../../store/runs/run-secrets.js';

export interface TrialRunOptions {
  store: Store;
  /** The sandbox that runs drivers; without it the route answers 503. */
  host?: RunExecutor;
  /** The operator's list for API drivers (MonitoringApiOptions.externalHosts). */
  externalHosts?: readonly string[];
}

export const trialBodySchema = {
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: {
    code: { type: 'string', minLength: 1, maxLength: MAX_DRIVER_SOURCE_CHARS },
    action: { type: 'string', pattern: '^(get_status|validate|backup|custom_([1-9]|[12][0-9]|30))$', default: 'get_status' },
    custom_driver_id: { type: 'integer', minimum: 0, maximum: 2147483647 },
    parameters: {
      type: 'object',
      additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' } }] },
    },
  },
} as const;

/** The library driver the body names (404 when there is none), or null without custom_driver_id. */
export async function trialDriver(store: Store, body: TrialRunRequest): Promise<CustomDriverRow | null> {
  if (body.custom_driver_id === undefined) return null;
  const driver = await getCustomDriver(store, body.custom_driver_id);
  if (!driver) throw notFound('custom driver', body.custom_driver_id);
  return driver;
}

/** A driver's parameters with a default, by name. */
export function driverDefaults(driver: CustomDriverRow): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const p of driver.parameters) if (p.defaultValue !== null && p.defaultValue !== undefined) values[p.name] = p.defaultValue;
  return values;
}

/**
 * What a trial may reach with D.createExternalDevice: the policy of the code sent (`code`), not
 * of the library driver's id: the operator's policy only when the code is byte for byte the
 * inventory's file for that driver; any other code (the usual trial: edited code) what a driver
 * added through the API may reach (the operator's list).
 */
export async function trialExternalHosts(store: Store, driver: CustomDriverRow | null, code: string, operatorList: readonly string[] | undefined): Promise<string[] | undefined> {
  return driver ? await externalHostsFor(store, { driverId: driver.id, source: code }, operatorList) : [...(operatorList ?? [])];
}

/** The sandbox that runs trials; 503 on a server started without one (the tests' API-only servers). */
export function requireHost(host: RunExecutor | undefined): RunExecutor {
  if (!host) throw new ApiError(503, 'EXECUTION_UNAVAILABLE', 'this server was started without a driver host, so it cannot run drivers');
  return host;
}

/** Runs the trial (code as sent, full transcript) and answers what it reported, masked; nothing is stored. */
export async function runTrial(host: RunExecutor | undefined, body: TrialRunRequest, request: Omit<RunRequest, 'source' | 'filename' | 'action' | 'transcript'>, mask: SecretMask): Promise<TrialRunAnswer> {
  let result;
  try {
    result = mask.result(await requireHost(host).run({ ...request, source: body.code, filename: 'driver.js', action: body.action ?? 'get_status', transcript: 'full' }));
  } catch (error) {
    if (!(error instanceof DriverboxError)) throw error;
    throw new ApiError(error.code === 'HOST_CLOSED' ? 503 : 500, error.code, mask.text(`the trial run could not be run: ${error.message}`));
  }
  return {
    action: result.action,
    outcome: result.status,
    error_type: result.errorType,
    error_message: result.message,
    limit_exceeded: result.limitExceeded,
    elapsed_ms: Math.round(result.durationMs),
    variables: result.variables,
    tables: result.tables,
    log: result.logs,
    warnings: result.warnings,
    http: result.http,
  };
}

/** Registers the route on an app already behind the key check (runs-routes.ts). */
export function registerTrialRun(api: FastifyInstance, options: TrialRunOptions): void {
  const { store } = options;
  api.post<{ Params: { agent_id: number; device_id: number }; Body: TrialRunRequest }>('/agent/:agent_id/device/:device_id/trial-run', {
    schema: { params: idParams('agent_id', 'device_id'), body: trialBodySchema },
    handler: async (request): Promise<TrialRunAnswer> => {
      const { agent_id: agentId, device_id: deviceId } = request.params;
      const body = request.body;
      const device = await requireDevice(store, agentId, deviceId);
      const driver = await trialDriver(store, body);
      const association = driver ? await findAssociation(store, driver.id, device.id) : undefined;
      // The association's values, or the driver's defaults without one; the body's over them.
      const parameters = { ...(association ? runParameters(association) : driver ? driverDefaults(driver) : {}), ...body.parameters };
      const externalHosts = await trialExternalHosts(store, driver, body.code, options.externalHosts);
      const mask = maskFor(await deviceSecrets(store, device.id));
      return runTrial(options.host, body, { device: await deviceSpecOf(store, device), parameters, ...(externalHosts ? { externalHosts } : {}) }, mask);
    },
  });
}
