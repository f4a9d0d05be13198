// What a device's runs keep between runs, as plain data that can move between agents: the
// cookie jars of the run's HTTP sessions (host/bridges/http/sessions.ts), keyed as the host keys
// its sessions (target, credentials digest, driver digest). The embedded mode keeps the jars in
// the host's memory and never uses any of this; the scale-out mode gives a run its device's
// snapshot (RunRequest.deviceState), gets back the sessions the run changed
// (RunResult.deviceState) and keeps them in the shared store (DeviceStateStore).
// withSharedDeviceState wraps a RunExecutor to do both around every run of a store device.
import { DriverboxError } from './contract/errors.js';
import { DEVICE_STATE_VERSION, MAX_DEVICE_STATE_BYTES, MAX_DEVICE_STATE_SESSIONS, type DeviceSessionState, type DeviceStateSnapshot, type DeviceStateStore } from './contract/device-state.js';
import type { RunRequest } from './contract/run-request.js';
import type { RunExecutor } from './contract/run-executor.js';
import type { RunResult } from './contract/run-result.js';

/** A session key at most, characters (the host's keys are ~100). */
const MAX_KEY_CHARS = 2048;

const refuse = (where: string, message: string) => new DriverboxError('INVALID_OPTIONS', `${where}: ${message}`);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `value` checked as a snapshot: its shape, at most MAX_DEVICE_STATE_SESSIONS sessions with
 * distinct keys, at most MAX_DEVICE_STATE_BYTES of JSON. Throws INVALID_OPTIONS naming what is
 * wrong. The cookies are only checked to be objects: the jar a run builds from them takes what
 * tough-cookie can read, within the bounds of BoundedCookieStore (host/bridges/http/cookie-store.ts).
 */
export function readDeviceState(value: unknown, where = 'deviceState'): DeviceStateSnapshot {
  if (!isObject(value)) throw refuse(where, 'must be a device state snapshot { version, sessions } or null');
  if (value.version !== DEVICE_STATE_VERSION) throw refuse(where, `version must be ${DEVICE_STATE_VERSION} (got ${JSON.stringify(value.version) ?? String(value.version)})`);
  const sessions = value.sessions;
  if (!Array.isArray(sessions)) throw refuse(where, 'sessions must be an array');
  if (sessions.length > MAX_DEVICE_STATE_SESSIONS) throw refuse(where, `${sessions.length} sessions, more than the ${MAX_DEVICE_STATE_SESSIONS} a device state may hold`);
  const keys = new Set<string>();
  sessions.forEach((session: unknown, i) => {
    const at = `${where}.sessions[${i}]`;
    if (!isObject(session)) throw refuse(at, 'must be an object { key, savedAt, cookies }');
    if (typeof session.key !== 'string' || session.key === '' || session.key.length > MAX_KEY_CHARS) throw refuse(`${at}.key`, `must be a non-empty string of at most ${MAX_KEY_CHARS} characters`);
    if (keys.has(session.key)) throw refuse(`${at}.key`, 'is the key of an earlier session');
    keys.add(session.key);
    if (typeof session.savedAt !== 'number' || !Number.isFinite(session.savedAt)) throw refuse(`${at}.savedAt`, 'must be a time in ms since the epoch');
    if (!Array.isArray(session.cookies) || !session.cookies.every(isObject)) throw refuse(`${at}.cookies`, 'must be an array of cookie objects');
  });
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(value));
  } catch (error) {
    throw refuse(where, `is not JSON data (${error instanceof Error ? error.message : String(error)})`);
  }
  if (bytes > MAX_DEVICE_STATE_BYTES) throw refuse(where, `${bytes} bytes of JSON, more than the ${MAX_DEVICE_STATE_BYTES} a device state may hold`);
  return value as unknown as DeviceStateSnapshot;
}

/** The bytes one session takes in a snapshot's JSON (its text and a comma). */
const sessionBytes = (session: DeviceSessionState) => Buffer.byteLength(JSON.stringify(session)) + 1;
/** A snapshot's JSON without sessions: {"version":1,"sessions":[]}. */
const EMPTY_BYTES = Buffer.byteLength(JSON.stringify({ version: DEVICE_STATE_VERSION, sessions: [] }));

/**
 * `sessions` cut to what one snapshot may hold, newest (savedAt) first: at most
 * MAX_DEVICE_STATE_SESSIONS, at most MAX_DEVICE_STATE_BYTES. `left` counts those that did not fit.
 */
export function boundSessions(sessions: readonly DeviceSessionState[]): { kept: DeviceSessionState[]; left: number } {
  const newestFirst = [...sessions].sort((a, b) => b.savedAt - a.savedAt);
  const kept: DeviceSessionState[] = [];
  let bytes = EMPTY_BYTES;
  for (const session of newestFirst) {
    if (kept.length >= MAX_DEVICE_STATE_SESSIONS) break;
    const size = sessionBytes(session);
    if (bytes + size > MAX_DEVICE_STATE_BYTES) continue; // a smaller, older one may still fit
    kept.push(session);
    bytes += size;
  }
  return { kept, left: sessions.length - kept.length };
}

/**
 * The kept state after a save of `update` (what a run returned) over `kept` (null: none yet):
 * per key, update's session replaces the kept one, and one without cookies removes it; keys
 * the update lacks stay. Then bounded as a snapshot is: past the bounds, the sessions saved
 * longest ago are dropped (a driver replaced by a new version leaves its old jar to age out).
 */
export function mergeDeviceState(kept: DeviceStateSnapshot | null, update: DeviceStateSnapshot): DeviceStateSnapshot {
  const byKey = new Map<string, DeviceSessionState>();
  for (const session of kept?.sessions ?? []) byKey.set(session.key, session);
  for (const session of update.sessions) {
    if (session.cookies.length === 0) byKey.delete(session.key);
    else byKey.set(session.key, session);
  }
  return { version: DEVICE_STATE_VERSION, sessions: boundSessions([...byKey.values()]).kept };
}

/** A DeviceStateStore in this process's memory: for tests, and for embedding several hosts in one process. */
export class MemoryDeviceStateStore implements DeviceStateStore {
  readonly #states = new Map<number, DeviceStateSnapshot>();

  async load(deviceId: number): Promise<DeviceStateSnapshot | null> {
    const state = this.#states.get(deviceId);
    // A copy: a caller changing what it got changes nothing here.
    return state ? structuredClone(state) : null;
  }

  async save(deviceId: number, state: DeviceStateSnapshot): Promise<void> {
    const update = structuredClone(readDeviceState(state, 'device state'));
    const merged = mergeDeviceState(this.#states.get(deviceId) ?? null, update);
    if (merged.sessions.length === 0) this.#states.delete(deviceId);
    else this.#states.set(deviceId, merged);
  }

  /** Devices with kept state. */
  get size(): number {
    return this.#states.size;
  }
}

/**
 * The store's id of a run's device, read from the device id buildRunRequest gives it
 * (`agent-<agent>-device-<device>`, host/store/runs/run-request.ts); null for any other device.
 */
export function storeDeviceId(request: RunRequest): number | null {
  const id = request.device?.id;
  const match = typeof id === 'string' ? /^agent-\d+-device-(\d+)$/.exec(id) : null;
  const deviceId = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(deviceId) ? deviceId : null;
}

export interface SharedDeviceStateOptions {
  /** The store's id of the run's device; null: the run goes through without shared state. Default storeDeviceId. */
  deviceId?: (request: RunRequest) => number | null;
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * A RunExecutor whose runs of a store device load that device's kept state from `store` first
 * (RunRequest.deviceState) and save the sessions the run changed after (RunResult.deviceState,
 * which the caller does not get). Any agent may thus run any device's next slot with the jar the
 * last run left. A run that ended without state (its sandbox process died under it; the state it
 * returned was refused) saves nothing: the device keeps what it had.
 *
 * A state that cannot be loaded (the store fails, or what it holds is not a snapshot) does not
 * stop the run: it starts with no kept state, as on a new agent, and its result says so in a
 * warning; a save that fails is a warning too. The driver logs in again: what a collector does
 * after a restart.
 *
 * Two runs of one device at once (two agents, or two drivers on one device): each starts from
 * the state as loaded, with jars of its own, and saves only the sessions whose jars it changed.
 * Sessions of different keys (another driver, another external host) never overwrite each
 * other; for one key, the run that saves last wins and the other's cookies for that key are
 * lost. That costs at most one extra login on the next run; see docs/ARCHITECTURE.md.
 */
export function withSharedDeviceState(executor: RunExecutor, store: DeviceStateStore, options: SharedDeviceStateOptions = {}): RunExecutor {
  const deviceIdOf = options.deviceId ?? storeDeviceId;
  return {
    async run(request: RunRequest): Promise<RunResult> {
      // A caller that gives the state itself keeps it in its own hands.
      if (request.deviceState !== undefined) return executor.run(request);
      const deviceId = deviceIdOf(request);
      if (deviceId === null) return executor.run(request);
      const warnings: string[] = [];
      let kept: DeviceStateSnapshot | null = null;
      try {
        const loaded = await store.load(deviceId);
        kept = loaded === null ? null : readDeviceState(loaded, 'the kept device state');
      } catch (error) {
        warnings.push(`the kept state of device ${deviceId} (cookies) could not be loaded, so the run started without it: ${reason(error)}`);
      }
      const { deviceState, ...result } = await executor.run({ ...request, deviceState: kept });
      if (deviceState && deviceState.sessions.length > 0) {
        try {
          await store.save(deviceId, deviceState);
        } catch (error) {
          warnings.push(`the state this run left on device ${deviceId} (cookies) could not be saved: ${reason(error)}`);
        }
      }
      return warnings.length > 0 ? { ...result, warnings: [...result.warnings, ...warnings] } : result;
    },
    close: () => executor.close(),
  };
}
