// `driverbox run … --report [--store <path>]`: the store is opened before the run (a bad path
// is a usage error, found before the device is contacted) and the result written after it.
import { resolveStorePath } from '../store/db/data-dir.js';
import { reportRun } from '../store/runs/report-local-run.js';
import { openStore, type Store } from '../store/store.js';
import type { RunResult } from '../contract/run-result.js';
import { UsageError } from '../contract/errors.js';

export interface ReportOptions {
  report: boolean;
  store: string | undefined;
  device: { ip: string | null; host: string | null; portMap?: Record<number, number>; /** The name a device new to the store gets (default its address). */ displayName?: string };
  /** The run's credentials: masked in what is written. */
  secrets?: ReadonlyArray<string | null | undefined>;
}

/** The flags' usage errors, found before anything starts: --store without --report, --report without a device address. */
export function checkReportFlags(options: ReportOptions): void {
  if (!options.report) {
    if (options.store !== undefined) throw new UsageError('--store is only used with --report');
    return;
  }
  if (!options.device.ip && !options.device.host) {
    throw new UsageError('--report needs the device address (--device-ip or --device-host) to know which device the result belongs to');
  }
}

/** The store to report to, or undefined without --report. */
export async function openReportStore(options: ReportOptions, cwd: string, env: NodeJS.ProcessEnv): Promise<Store | undefined> {
  checkReportFlags(options);
  if (!options.report) return undefined;
  const file = resolveStorePath({ flag: options.store, env, cwd });
  try {
    return await openStore({ path: file });
  } catch (error) {
    throw new UsageError(`--report: ${(error as Error).message}`);
  }
}

/**
 * Writes the result (device credentials are not stored); answers the line to print and
 * whether it was written. A result that could not be written fails the command.
 */
export async function reportResult(store: Store, options: ReportOptions, driverName: string, result: RunResult): Promise<{ ok: boolean; line: string }> {
  try {
    const reported = await reportRun(store, { device: options.device, driverName, result, user: 'driverbox run', secrets: options.secrets });
    const device = options.device.host ?? options.device.ip;
    const count = reported.variableIds.length;
    return {
      ok: true,
      line:
        `reported to ${store.path}: agent ${reported.agentId}, device ${reported.deviceId} (${device}${reported.deviceCreated ? ', new' : ''}), ` +
        `run ${reported.runId}, ${count} variable${count === 1 ? '' : 's'}` +
        (reported.configuration ? `, configuration ${reported.configuration.changed ? 'saved' : 'unchanged'} (${new Date(reported.configuration.timestamp).toISOString().slice(0, 19)}Z)` : '') +
        reported.warnings.map((w) => `\n  warning: ${w}`).join(''),
    };
  } catch (error) {
    return { ok: false, line: `driverbox run: the result was not reported to ${store.path}: ${(error as Error).message}` };
  }
}
