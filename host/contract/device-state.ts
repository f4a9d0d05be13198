// The kept state of a device's HTTP sessions (their cookie jars) as plain data that moves between
// agents: given to a run (RunRequest.deviceState), returned by it (RunResult.deviceState), kept by
// the scale-out mode's shared store. Checked and merged by host/device-state.ts.
export const DEVICE_STATE_VERSION = 1;
/** The JSON text of one snapshot (given to a run, returned by one, kept for a device) at most, bytes. */
export const MAX_DEVICE_STATE_BYTES = 256 * 1024;
/** Sessions in one snapshot at most. */
export const MAX_DEVICE_STATE_SESSIONS = 32;

/** One cookie as tough-cookie's Cookie.toJSON() gives it (key, value, domain, path, expires…). */
export type StoredCookie = Record<string, unknown>;

/** One HTTP session's kept state. */
export interface DeviceSessionState {
  /**
   * The session's key, as the host keys its sessions: the target (device id or address and port
   * map, a digest of its credentials, a pinned address; an external host's name), then a digest
   * of the driver's file name and source. A jar one driver logged in is never another driver's.
   */
  key: string;
  /** When the run that changed it ended, ms since the epoch (the merge drops the oldest first). */
  savedAt: number;
  /** Its cookies. None: the session has nothing left to keep (a merge removes it). */
  cookies: StoredCookie[];
}

/** The kept state of a device's sessions. */
export interface DeviceStateSnapshot {
  version: typeof DEVICE_STATE_VERSION;
  sessions: DeviceSessionState[];
}

/** Where the scale-out mode keeps each device's state: the shared store implements it. */
export interface DeviceStateStore {
  /** The device's kept state; null when none was saved. */
  load(deviceId: number): Promise<DeviceStateSnapshot | null>;
  /**
   * Merges what a run returned into the device's kept state, per session key: each session of
   * `state` replaces the kept one of its key (one without cookies removes it), the others stay.
   * Two writers of one key: the last save wins. Bounded as mergeDeviceState bounds it.
   */
  save(deviceId: number, state: DeviceStateSnapshot): Promise<void>;
}

