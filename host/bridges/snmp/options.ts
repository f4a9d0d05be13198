// The driver's options of one SNMP call (D.device.createSNMPSession's options plus what
// the runtime adds: the operation and its OIDs / value), checked before anything is sent.
// Defaults are the platform's: port 161, timeout 5000 ms, maxRepetitions 24.
import { describe, isPlainObject } from '../../untrusted-input/plain-values.js';
import { SnmpOptionError } from './errors.js';

export type SnmpOp = 'get' | 'walk' | 'set';

export interface SnmpCall {
  op: SnmpOp;
  port: number;
  timeoutMs: number;
  maxRepetitions: number;
  /** get: the OIDs asked for; walk: the subtree's root; set: the one OID set. */
  oids: string[];
  /** set only: an Integer32 for a number, an OctetString for text. */
  value: { type: 'Integer' | 'OctetString'; value: number | string } | null;
}

export const DEFAULT_SNMP_PORT = 161;
export const DEFAULT_SNMP_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_REPETITIONS = 24;
/** OIDs one get may ask for: a request past this would not fit a UDP datagram anyway. */
export const MAX_GET_OIDS = 1_000;
/** Longest timeout a timer can wait (Node fires at once past it). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

function invalid(message: string): never {
  throw new SnmpOptionError(message);
}

/** A dotted numeric OID, a leading dot allowed (and dropped): "1.3.6.1.2.1.1.1.0". */
export function checkOid(value: unknown, what: string): string {
  if (typeof value !== 'string') invalid(`${what} must be an OID string such as "1.3.6.1.2.1.1.1.0" (got ${describe(value)})`);
  const oid = value.startsWith('.') ? value.slice(1) : value;
  // Each arc fits 32 bits (what the BER encoder writes); at least two arcs, at most 128.
  if (!/^\d+(\.\d+)+$/.test(oid) || oid.split('.').length > 128 || oid.split('.').some((arc) => Number(arc) > 0xffffffff)) {
    invalid(`${what} is not a numeric OID such as "1.3.6.1.2.1.1.1.0" (got ${JSON.stringify(value.slice(0, 200))})`);
  }
  return oid;
}

function integerOption(options: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const value = options[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalid(`${name} must be an integer from ${min} to ${max} (got ${describe(value)})`);
  }
  return value;
}

function setValue(value: unknown): SnmpCall['value'] {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < -(2 ** 31) || value > 2 ** 31 - 1) invalid(`a number value is set as an Integer32: it must be an integer from -2147483648 to 2147483647 (got ${describe(value)})`);
    return { type: 'Integer', value };
  }
  if (typeof value === 'string') {
    if (Buffer.byteLength(value) > 65_535) invalid('a text value is set as an OctetString of at most 65535 bytes');
    return { type: 'OctetString', value };
  }
  return invalid(`value must be a string (set as an OctetString) or an integer (set as an Integer32) (got ${describe(value)})`);
}

/** The call the runtime sent, checked; throws SnmpOptionError with a message for the driver. */
export function parseSnmpCall(raw: unknown): SnmpCall {
  if (!isPlainObject(raw)) invalid(`options must be an object such as { port: 161, timeout: 5000 } (got ${describe(raw)})`);
  const options = raw as Record<string, unknown>;
  const op = options.op;
  if (op !== 'get' && op !== 'walk' && op !== 'set') invalid(`unknown SNMP operation ${describe(op)}`);
  const port = integerOption(options, 'port', DEFAULT_SNMP_PORT, 1, 65_535);
  const timeoutMs = integerOption(options, 'timeout', DEFAULT_SNMP_TIMEOUT_MS, 1, MAX_TIMEOUT_MS);
  const maxRepetitions = integerOption(options, 'maxRepetitions', DEFAULT_MAX_REPETITIONS, 1, 1_000);
  let oids: string[];
  let value: SnmpCall['value'] = null;
  if (op === 'get') {
    // One OID as a string is taken as a list of one (the emulator passes it to net-snmp, which fails).
    const list = typeof options.oids === 'string' ? [options.oids] : options.oids;
    if (!Array.isArray(list) || list.length === 0) invalid(`get needs a list of OIDs such as ["1.3.6.1.2.1.1.1.0"] (got ${describe(options.oids)})`);
    if (list.length > MAX_GET_OIDS) invalid(`get asks for ${list.length} OIDs; at most ${MAX_GET_OIDS} fit one request`);
    oids = list.map((oid, i) => checkOid(oid, `oids[${i}]`));
  } else {
    oids = [checkOid(options.oid, 'oid')];
    if (op === 'set') value = setValue(options.value);
  }
  return { op, port, timeoutMs, maxRepetitions, oids, value };
}
