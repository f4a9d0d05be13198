// One scheduled run of an association: each of its actions in turn, read fresh from the store
// (so an edit made through the API or a reload applies to the next run), executed in the
// sandbox, and written back as variables. An association deleted or disabled meanwhile, or its
// device no longer monitored, simply ends the run.
import type { RunLimits } from '../contract/limits.js';
import type { RunResult } from '../contract/run-result.js';
import { withSharedDeviceState } from '../device-state.js';
import { isDeviceMonitored } from '../store/fleet/device-monitoring.js';
import type { StoreDeviceStates } from '../store/runs/device-states.js';
import { writeScheduledRunResult, type WriteRunOptions } from '../store/runs/report-run.js';
import { readRunTarget } from '../store/runs/run-target.js';
import { runRequestOf } from '../store/runs/run-request.js';
import { StoreError } from '../contract/errors.js';
import type { Store } from '../store/store.js';
import { externalHostsOf } from './external-hosts.js';
import type { RunExecutor } from '../contract/run-executor.js';
import type { DeviceRunPruner } from './device-run-pruner.js';

export interface AssociationRunContext {
  store: Store;
  executor: RunExecutor;
  agentId: number;
  limits?: Partial<RunLimits>;
  write: WriteRunOptions;
  /** Hosts drivers not made by the inventory may reach with D.createExternalDevice (default none; "*": any). */
  externalHosts?: readonly string[];
  /**
   * Scale-out: the scheduled slot this run is for. The first action's result claims it (the
   * store's write rule); when another agent's result has it already, this run stops there.
   */
  slot?: { slotMs: number; runner: string };
  /**
   * Scale-out: what a device's runs keep between runs (cookies) lives in the store; it is read
   * with the device's row and saved after the run when the run changed it (withSharedDeviceState).
   */
  deviceStates?: StoreDeviceStates;
  /** Keeps each device's newest runs: told of each result written (the write itself prunes nothing). */
  runPruner?: DeviceRunPruner;
}

export interface ActionRun {
  action: string;
  result: RunResult;
  /** The run's record in the store; null when writing it failed (storeError says why). */
  runId: number | null;
  storeError: Error | null;
  /** What the store refused of the result (a device's bound on variables or tables bit): its warnings. */
  storeWarnings: string[];
}

/** Who a run is: read from the store at its start (the embedded scheduler knows it beforehand; a queue job carries only the id). */
export interface RunIdentity {
  driverId: number;
  driverName: string;
  deviceId: number;
  deviceName: string;
}

export interface AssociationRunHooks {
  /** The association, its driver and device were read, before the first action: called once. */
  identified?(identity: RunIdentity): void;
  /** An action is about to be sent to the executor. */
  started(action: string): void;
  /** An action ran and its result was written (or failed to be). */
  finished(run: ActionRun): void;
  /** The executor threw instead of answering (it was closed): the run ends with this error. */
  abandoned(action: string, error: Error): void;
}

/**
 * Runs the association's actions in order, telling the hooks about each. Stops
 * early when the signal aborts (the agent is stopping) or the association is gone. A failed
 * action does not stop the next one: each is its own run, as on a collector.
 */
export async function runAssociation(
  ctx: AssociationRunContext,
  associationId: number,
  actions: readonly string[],
  signal: AbortSignal,
  hooks: AssociationRunHooks,
): Promise<ActionRun[]> {
  const done: ActionRun[] = [];
  for (const [index, action] of actions.entries()) {
    if (signal.aborted) break;
    // The rows as a run needs them (no used-variable count, no driver parameters or device list),
    // the device with its credentials, SNMP settings and kept state, the driver's origin: read once for the run and its write.
    const target = await readRunTarget(ctx.store, ctx.agentId, associationId);
    // Gone, disabled, or its device no longer monitored since the run was scheduled: stop here.
    if (!target || target.association.status !== 'ENABLED' || !isDeviceMonitored(target.device)) break;
    const { association, driver, device } = target;
    if (index === 0) hooks.identified?.({ driverId: driver.id, driverName: driver.name, deviceId: device.id, deviceName: device.displayName });
    const request = runRequestOf({ driver, association, action }, target.spec, ctx.limits);
    const allowed = externalHostsOf(target.operatorCode, ctx.externalHosts);
    if (allowed) request.externalHosts = allowed;
    const executor = ctx.deviceStates ? withSharedDeviceState(ctx.executor, ctx.deviceStates.preloaded(target.sealedState)) : ctx.executor;
    hooks.started(action);
    let result: RunResult;
    try {
      result = await executor.run(request);
    } catch (error) {
      const reason = error instanceof Error ? error : new Error(String(error));
      hooks.abandoned(action, reason);
      throw reason;
    }
    let runId: number | null = null;
    let storeError: Error | null = null;
    let storeWarnings: string[] = [];
    try {
      // The association may have been deleted while the run was going: the write marks it run
      // first, in its transaction, and writes nothing when it is gone. The device's secrets mask
      // the result as the run read them.
      const write = { ...ctx.write, deviceSecrets: target.secrets };
      const written = await writeScheduledRunResult(
        ctx.store,
        { agentId: ctx.agentId, deviceId: device.id, customDriverId: driver.id, associationId, driverName: driver.name, user: 'driverbox agent' },
        result,
        // Scale-out: the slot is claimed by the first action's result, and every result commits
        // only within the run's deadline (the signal), never after its job may have moved on.
        ctx.slot ? { ...write, until: signal, ...(index === 0 ? { slot: ctx.slot } : {}) } : write,
      );
      runId = written?.runId ?? null;
      storeWarnings = written?.warnings ?? [];
      if (runId !== null) ctx.runPruner?.noted(device.id);
    } catch (error) {
      storeError = error instanceof Error ? error : new Error(String(error));
    }
    const run = { action, result, runId, storeError, storeWarnings };
    done.push(run);
    hooks.finished(run);
    // Another agent stored this slot first (its run goes on), or this run is out of time: nothing more is written.
    if (storeError instanceof StoreError && (storeError.code === 'DUPLICATE_RUN' || storeError.code === 'RUN_TOO_LATE')) break;
  }
  return done;
}
