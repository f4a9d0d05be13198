// Reporting a run made outside the API (the CLI's --report, or a program embedding the host):
// the device is found by its address under the local agent, or created there, and the result
// is written to it. Credentials used for the run are never stored here.
import { ensureLocalAgent } from '../fleet/agents.js';
import { createDevice, findDeviceByAddress } from '../fleet/devices.js';
import { writeRunResult, type ReportedRun } from './report-run.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';
import type { RunResult } from '../../contract/run-result.js';

export interface ReportRunInput {
  /** The device the run was made against: a host name identifies it when given, else its IP. */
  device: { ip?: string | null; host?: string | null; portMap?: Record<number, number>; displayName?: string };
  /** The driver's name or file, for the run record and the activity log. */
  driverName?: string | null;
  result: RunResult;
  /** Who ran it, for the activity log (default "driverbox"). */
  user?: string;
  /** The credentials the run used: masked as *** in everything written (they are never stored). */
  secrets?: ReadonlyArray<string | null | undefined>;
}

export interface ReportedLocalRun extends ReportedRun {
  agentId: number;
  deviceId: number;
  /** True when the device was not in the store before this report. */
  deviceCreated: boolean;
}

export async function reportRun(store: Store, input: ReportRunInput): Promise<ReportedLocalRun> {
  const ip = input.device.ip || null;
  const hostName = input.device.host || null;
  if (!ip && !hostName) {
    throw new StoreError('INVALID', 'cannot report a run without the device address: give device.ip or device.host');
  }
  return await store.transaction(async () => {
    const agent = await ensureLocalAgent(store);
    let device = await findDeviceByAddress(store, agent.id, { ip, hostName });
    const deviceCreated = !device;
    device ??= await createDevice(store, agent.id, {
      displayName: input.device.displayName ?? hostName ?? ip!,
      ip,
      hostName,
      portMap: portMapOf(input.device.portMap),
    });
    const reported = await writeRunResult(
      store,
      { agentId: agent.id, deviceId: device.id, driverName: input.driverName ?? null, user: input.user },
      input.result,
      { secrets: input.secrets },
    );
    return { ...reported, agentId: agent.id, deviceId: device.id, deviceCreated };
  });
}

function portMapOf(map: Record<number, number> | undefined): Record<string, number> | undefined {
  if (!map) return undefined;
  return Object.fromEntries(Object.entries(map).map(([from, to]) => [String(from), to]));
}
