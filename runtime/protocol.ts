// The contract between the host and the runtime bundle inside the isolate.
// Only JSON text and primitives cross the boundary, in both directions.

/** Operations the runtime asks of the host (first argument of the host call). */
export type HostOp =
  | 'log' // LogMessage; sync
  | 'end' // RunEnd: D.success / D.failure / an uncaught error; sync
  | 'warn' // string; sync
  | 'logDropped' // LogDropped (runtime/console.ts): console output dropped past the log limit so far; sync
  | 'loadLib' // LibName; sync: the host evaluates the library bundle in this context
  | 'crypto' // CryptoCall; sync, answers CryptoAnswer
  | 'http' // HttpCall; async, answered by dispatch('done', id, …)
  | 'tls' // TlsCall; async
  | 'timer' // { ms }; async
  | 'proto' // ProtocolCall (SSH, Telnet, SNMP, WinRM); async
  | 'external' // ExternalDeviceCall; sync, answers the new target number
  | 'cancel'; // { id }: forget a pending async op (clearTimeout)

export type LogLevel = 'debug' | 'info' | 'log' | 'warn' | 'error';

export interface LogMessage {
  level: LogLevel;
  message: string;
}

export type LibName = 'q' | 'lodash' | 'cheerio' | 'buffer';

export type VariableRecord = {
  uid: string;
  label: string;
  value: string | null;
  unit: string | null;
  valueType: string;
};

export interface ColumnHeader {
  label: string;
  unit: string | null;
  valueType: string;
}

export interface TableRecord {
  label: string;
  columnHeaders: ColumnHeader[];
  /** Each row starts with its record id, then one value per column. */
  rows: Array<Array<string | null>>;
  /**
   * Only when a row made by addMetrics has a cell with metadata: one entry per row (null for a
   * row without any), each one entry per column (the record id has none), null for a cell without.
   */
  cellMetadata?: Array<Array<Record<string, string> | null> | null>;
}

export interface RunEnd {
  status: 'success' | 'failure';
  errorType: string | null;
  message: string | null;
  variables: VariableRecord[];
  tables: TableRecord[];
  /** The configuration backup D.success reported (backup() drivers), checked again by the host. */
  backup?: BackupRecord;
}

/** A configuration backup (D.createBackup): the runtime's check, then the host's. */
export interface BackupRecord {
  label: string;
  running: string;
  startup: string | null;
}

export interface DeviceInfo {
  ip: string | null;
  host: string | null;
  username: string | null;
  password: string | null;
  serial: string | null;
  macAddress: string | null;
}

/** Bounds the runtime enforces on what the driver builds (the host re-checks sizes). */
export interface RuntimeLimits {
  maxVariables: number;
  maxTableRows: number;
  maxLogChars: number;
  /** Timers (setTimeout, setInterval, q's delay) one run may start; an interval counts once. */
  maxTimers: number;
}

export interface SandboxConfig {
  action: string;
  device: DeviceInfo;
  parameters: Record<string, unknown>;
  limits: RuntimeLimits;
  /** File name the driver is compiled under; used to keep only driver frames in stacks. */
  driverFilename: string;
}

/** A device as the HTTP bridge knows it: the run's own device, or an external host. */
export interface HttpCall {
  /** 0 = the run's device; n > 0 = the nth D.createExternalDevice of this run. */
  target: number;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  options: Record<string, unknown>;
}

export interface ExternalDeviceCall {
  host: string;
  credentials: { username?: string; password?: string } | null;
}

export interface TlsCall {
  target: number;
  options: Record<string, unknown>;
}

export interface HttpAnswer {
  error: { message: string; code: string } | null;
  /** What the driver's callback gets as its response, as it is (but see bodyKind). */
  response: {
    statusCode: number;
    statusMessage: string;
    headers: Record<string, string | string[]>;
    /** Text; JSON text the sandbox parses when bodyKind is 'json' (kept as text when it is not JSON); base64 bytes when 'base64' (encoding: null). */
    body: unknown;
  } | null;
  bodyKind?: 'json' | 'base64';
}

/** A value crossing the boundary for D.crypto: text, bytes (base64), or a plain scalar. */
export type WireValue = { s: string } | { b64: string } | { v: number | boolean | null };

export type CryptoFn = 'hash' | 'hmac' | 'pbkdf2' | 'cipherCreate' | 'cipherUpdate' | 'cipherFinal' | 'cipherSetAutoPadding';

export interface CryptoCall {
  fn: CryptoFn;
  args: WireValue[];
}

/** value: text in the requested output encoding, or base64 bytes when `bytes` is set; or a handle number. */
export type CryptoAnswer = { ok: true; value: string | number; bytes?: boolean } | { ok: false; error: string };

/**
 * Kinds of host → runtime dispatch: the run (the driver's source: the runtime runs its top
 * level, then its entry point, inside its own guard), or the answer to an async operation.
 * A dispatch answers (as JSON text) the async operations the driver started during it:
 * [op, payload] pairs, in order. Queuing them saves a host call per operation; those started
 * outside a dispatch (top level, promise jobs run after it returned) are host calls.
 */
export type DispatchKind = 'run' | 'done';

/** Operations that a dispatch may queue rather than send at once. */
export type QueuedOp = 'http' | 'tls' | 'timer' | 'proto' | 'cancel';

/**
 * The D.device modules other than HTTP, each served on the host by its handler
 * (host/bridges/protocol-table.ts). SNMP's get / walk / set are one module, its options naming the call.
 */
export type ProtocolModule = 'ssh' | 'sshShell' | 'telnet' | 'snmp' | 'winrm' | 'tftp';

export interface ProtocolCall {
  /** 0 = the run's device; n > 0 = the nth D.createExternalDevice of this run. */
  target: number;
  module: ProtocolModule;
  /** The driver's options, as plain data (the runtime module may add fields of its own). */
  options: Record<string, unknown>;
}

/**
 * The host's answer to a ProtocolCall: an error (a code the runtime module maps to what the
 * driver's callback gets, a message, and fields the module adds, such as an exit status), or
 * the module's result.
 */
export interface ProtocolAnswer {
  error: { code: string; message: string; [field: string]: unknown } | null;
  result?: unknown;
}
