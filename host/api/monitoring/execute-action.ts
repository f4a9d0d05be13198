// executeCustomDriverAction: runs an action of a library driver in the sandbox against an
// associated device (its address from the device row, its stored credentials, the
// association's parameter values) and shapes the RunResult as CustomDriverExecutionResult.
// Action ids are the reference's custom_N ↔ N (1–30); 0 runs get_status (a driverbox
// extension, so collection can be triggered through the API). validate is not executable.
import { externalHostsFor } from '../../agent/external-hosts.js';
import type { RunExecutor } from '../../contract/run-executor.js';
import { DriverboxError } from '../../contract/errors.js';
import type { RunResult } from '../../contract/run-result.js';
import { findAssociation } from '../../store/drivers/associations.js';
import { getCustomDriver } from '../../store/drivers/custom-drivers.js';
import { buildRunRequest, type PlannedRun } from '../../store/runs/run-request.js';
import { deviceSecrets, maskFor, type SecretMask } from '../../store/runs/run-secrets.js';
import { requireDevice } from './access.js';
import type { Store } from '../../store/store.js';
import { writeRunResult } from '../../store/runs/report-run.js';
import type { ApiContext } from './context.js';
import { ApiError, conflict, notFound } from './api-error.js';
import type { CustomDriverExecutionResult } from './schemas/custom-drivers.js';

/** The action id that runs get_status (driverbox extension). */
export const GET_STATUS_ACTION_ID = 0;

export interface ExecutionRequest {
  customDriverId: number;
  agentId: number;
  deviceId: number;
  actionId: number;
}

/** What planExecution settled: the driver, association, device and action to run. */
export type ExecutionPlan = PlannedRun;

export function actionName(actionId: number): string {
  return actionId === GET_STATUS_ACTION_ID ? 'get_status' : `custom_${actionId}`;
}

/** Checks that the action can run, most general entity first; throws the ApiError that says why not. */
export async function planExecution(store: Store, request: ExecutionRequest): Promise<ExecutionPlan> {
  const device = await requireDevice(store, request.agentId, request.deviceId);
  const driver = await getCustomDriver(store, request.customDriverId);
  if (!driver) throw notFound('custom driver', request.customDriverId);
  const association = await findAssociation(store, driver.id, device.id);
  if (!association) {
    throw new ApiError(
      404,
      'NOT_ASSOCIATED',
      `custom driver ${driver.id} is not applied to device ${device.id}: create an association first (createCustomDriverAssociation)`,
    );
  }
  if (!driver.isValid) {
    const first = driver.inspection.errors[0]!;
    throw conflict(`custom driver ${driver.id} has invalid code and cannot run (${first.type}${first.line ? ` at line ${first.line}` : ''}: ${first.message})`);
  }
  const action = actionName(request.actionId);
  if (request.actionId !== GET_STATUS_ACTION_ID && !driver.inspection.actions.some((a) => a.id === request.actionId)) {
    const known = [`${GET_STATUS_ACTION_ID} (get_status)`, ...driver.inspection.actions.map((a) => `${a.id} (${a.label})`)].join(', ');
    throw new ApiError(404, 'NO_SUCH_ACTION', `custom driver ${driver.id} defines no ${action}; its actions: ${known}`);
  }
  return { driver, association, device, action };
}

/**
 * Runs the plan with the external-host policy of the code it runs (the operator's only when the
 * stored source is still the inventory's file: an update through the API loses it); the result comes back with the
 * device's credentials masked, so neither the answer nor what is stored holds them.
 */
export async function runPlannedAction(store: Store, host: RunExecutor, plan: ExecutionPlan, externalHosts: readonly string[] = []): Promise<RunResult> {
  const mask = maskFor(await deviceSecrets(store, plan.device.id));
  const request = await buildRunRequest(store, plan);
  const allowed = await externalHostsFor(store, { driverId: plan.driver.id, source: request.source ?? '' }, externalHosts);
  if (allowed) request.externalHosts = allowed;
  try {
    return mask.result(await host.run(request));
  } catch (error) {
    if (!(error instanceof DriverboxError)) throw error;
    const status = error.code === 'HOST_CLOSED' ? 503 : 500;
    throw new ApiError(status, error.code, mask.text(`${plan.action} of custom driver ${plan.driver.id} could not be run: ${error.message}`));
  }
}

/** The API's answer; `mask` (the run's secrets) is applied to every text in it. */
export function toExecutionResult(result: RunResult, mask?: SecretMask): CustomDriverExecutionResult {
  const text = (value: string) => (mask ? mask.text(value) : value);
  return {
    elapsed: Math.round(result.durationMs),
    ...(result.message === null ? {} : { errorMessage: text(result.message) }),
    ...(result.errorType === null ? {} : { errorType: result.errorType }),
    log: [...result.logs.map((l) => text(`${l.level}: ${l.message}`)), ...result.warnings.map((w) => text(`warning: ${w}`))],
    outcome: result.status,
  };
}

/**
 * What the execute action and a configuration backup both do: run the planned action through
 * the context's host and record the result (variables, run record, activity, the association
 * marked run and its health). 503 without a host; a result that cannot be stored is a 500 naming the outcome.
 */
export async function runAndRecord(store: Store, ctx: ApiContext, plan: ExecutionPlan, log: { error(o: object, m: string): void }): Promise<RunResult> {
  if (!ctx.host) {
    throw new ApiError(503, 'EXECUTION_UNAVAILABLE', `this server was started without a driver host, so it cannot run ${plan.action}`);
  }
  const result = await runPlannedAction(store, ctx.host, plan, ctx.externalHosts);
  try {
    // The store keeps the device's newest runs (its runsPerDevice bound) as it writes this one,
    // and marks the association run and writes its health in the same transaction.
    const reported = await writeRunResult(
      store,
      { agentId: plan.device.agentId, deviceId: plan.device.id, customDriverId: plan.driver.id, associationId: plan.association.id, driverName: plan.driver.name, user: ctx.user },
      result,
    );
    // What the store added (a bound that bit) is part of what the caller is told.
    if (reported.warnings.length) return { ...result, warnings: [...result.warnings, ...reported.warnings] };
  } catch (error) {
    log.error({ err: error }, 'storing a run result failed');
    const outcome = `${result.status}${result.errorType ? ` ${result.errorType}` : ''}`;
    throw new ApiError(500, 'RESULT_NOT_STORED', `${plan.action} ran (outcome ${outcome}) but its result could not be stored: ${(error as Error).message}`);
  }
  return result;
}
