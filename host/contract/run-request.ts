// What a caller asks of one driver run: the driver, the device, the action and the run's options.
// Every mode speaks it: createHost().run, the sandbox process, the agent's scheduler, the API's
// execute action and the scale-out workers.
import type { DeviceSpec } from './device.js';
import type { DeviceStateSnapshot } from './device-state.js';
import type { RunLimits } from './limits.js';
import type { RecordingFile } from './recording.js';

/**
 * Which hosts D.createExternalDevice may reach, and a redirect may lead to: a list of host
 * names / IPs ("*.example.com": any name under example.com; "*": any host for
 * D.createExternalDevice, but redirects only to the hosts named), or a predicate asked about both.
 */
export type ExternalHosts = string[] | ((host: string) => boolean);

/** 'full' also keeps the headers and bodies of every HTTP exchange, secrets masked. */
export type TranscriptMode = 'summary' | 'full';

/** name → IP, or name → { ip, portMap } to also dial other ports (a simulator's random ports). */
export type ResolveOption = Record<string, string | { ip: string; portMap?: Record<number, number>; onlyMappedPorts?: boolean }>;

export interface RunRequest {
  /** Path of the driver file, or its source text in `source`. */
  path?: string;
  source?: string;
  /** Name shown in stack traces when `source` is given (default driver.js). */
  filename?: string;
  /** validate, get_status (default), backup or custom_N. */
  action?: string;
  device?: DeviceSpec;
  parameters?: Record<string, unknown>;
  limits?: Partial<RunLimits>;
  /** This run's allow-list for D.createExternalDevice and redirects, instead of the host's. */
  externalHosts?: ExternalHosts;
  /** 'full' also records the headers and bodies of every HTTP exchange, secrets masked (default 'summary'). */
  transcript?: TranscriptMode;
  /**
   * Host names this run dials at another address, as a hosts file would: name → IP, or
   * { ip, portMap }. For simulated devices and cloud APIs on loopback; TLS still verifies the name.
   * A redirect to a pinned name is followed, as to a host listed in externalHosts.
   */
  resolve?: ResolveOption;
  /**
   * Save every HTTP exchange and certificate read of the run, secrets redacted, to this JSON file
   * when the run ends (docs/reference/record-replay.md). A file that cannot be written: RECORD_UNWRITABLE.
   */
  record?: string;
  /**
   * Answer the run's requests from a recording (its path, or the recording already parsed)
   * instead of the device; the device's address is the recorded one, and the action defaults
   * to the recorded one. A request not in it fails with REPLAY_MISS.
   */
  replay?: string | RecordingFile;
  /**
   * The kept state of the device's sessions (their cookie jars), as an earlier run left it in
   * RunResult.deviceState (kept by the caller: the scale-out mode keeps it in the shared store,
   * host/device-state.ts); null when none is kept yet. Given (null too), the run's sessions use
   * jars of the run's own built from it, instead of the jars this host keeps in memory, and the
   * result carries deviceState. Not given (the default), jars live in this host's memory
   * between runs, as always. Bounded: MAX_DEVICE_STATE_BYTES, MAX_DEVICE_STATE_SESSIONS, and
   * each jar's bounds (BoundedCookieStore). Not with `replay`, whose sessions are its own.
   */
  deviceState?: DeviceStateSnapshot | null;
  /**
   * Certificate authorities (PEM) this run alone trusts, on top of the host's: for a caller that
   * started the HTTPS server itself and knows its certificate (the API's trial run against a
   * simulated device). The run gets HTTP sessions of its own, closed when it ends, so no other
   * run reuses a connection this trust verified; its network is on the host thread.
   */
  trustedCAs?: string[];
}
