// The "snmp" section of a fixture: a simulated SNMP agent with typed values at OIDs (walked in
// OID order, whatever order the file lists them), a community, an optional write community,
// v3 users, and which OIDs a set may change. docs/reference/simulator/snmp.md describes every field.
import { describeValue, fieldPath, type FieldChecker } from '../field-checker.js';
import { AUTH_PROTOCOLS, MIN_V3_KEY_CHARS, PRIV_PROTOCOLS } from '../../snmp-settings.js';

export const SNMP_TYPES = ['OctetString', 'Integer', 'Counter32', 'Gauge32', 'TimeTicks', 'IpAddress', 'OID', 'Counter64', 'Opaque'] as const;
export type SnmpType = (typeof SNMP_TYPES)[number];

/** One value as written: text (an OctetString), an integer (an Integer), or typed. */
export type SnmpValueSpec = string | number | { type: SnmpType; value?: string | number; hex?: string; writable?: boolean };

export interface SnmpV3UserSpec {
  name: string;
  authProtocol?: string;
  authKey?: string;
  privProtocol?: string;
  privKey?: string;
}

export interface SnmpFixtureSpec {
  /** The device port drivers ask for (default 161). */
  port?: number;
  /** v1 / v2c community (default "public"). */
  community?: string;
  /** When given, only this community may set (the other reads only). */
  writeCommunity?: string;
  v3Users?: SnmpV3UserSpec[];
  oids: Record<string, SnmpValueSpec>;
}

export interface SnmpFixtureValue {
  oid: string;
  type: SnmpType;
  /** As net-snmp's agent takes it: text, a number, or bytes (OctetString from hex, Counter64, Opaque). */
  value: string | number | Buffer;
  writable: boolean;
}

export interface SnmpFixtureUser {
  name: string;
  level: 'noAuthNoPriv' | 'authNoPriv' | 'authPriv';
  authProtocol: string | null;
  authKey: string | null;
  privProtocol: string | null;
  privKey: string | null;
}

export interface SnmpFixture {
  port: number;
  community: string;
  writeCommunity: string | null;
  v3Users: SnmpFixtureUser[];
  /** In OID order. */
  values: SnmpFixtureValue[];
}

const FIELDS = ['port', 'community', 'writeCommunity', 'v3Users', 'oids'] as const;
const USER_FIELDS = ['name', 'authProtocol', 'authKey', 'privProtocol', 'privKey'] as const;
const VALUE_FIELDS = ['type', 'value', 'hex', 'writable'] as const;
const OID = /^\d+(\.\d+)+$/;
const U32 = 0xffffffff;

/** OIDs compared arc by arc, as an agent orders them. */
export function compareOids(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

function integerIn(check: FieldChecker, value: unknown, at: string, min: number, max: number): number | null {
  if (typeof value === 'string' && /^-?\d+$/.test(value)) value = Number(value);
  return check.integer(value, at, min, max);
}

function typedValue(check: FieldChecker, type: SnmpType, spec: Record<string, unknown>, at: string): SnmpFixtureValue['value'] | undefined {
  const value = spec.value;
  const valueAt = fieldPath(at, 'value');
  switch (type) {
    case 'OctetString':
      if (spec.hex !== undefined) {
        const hex = check.string(spec.hex, fieldPath(at, 'hex'));
        if (hex === null) return undefined;
        const clean = hex.replace(/[\s:]/g, '');
        if (!/^([0-9a-fA-F]{2})*$/.test(clean)) return void check.problem(fieldPath(at, 'hex'), `must be bytes in hex such as "00:1a:2b" (got ${describeValue(hex)})`);
        return Buffer.from(clean, 'hex');
      }
      // An empty OctetString is a value like any other (an unset sysContact).
      return value === '' ? '' : (check.string(value, valueAt) ?? undefined);
    case 'Integer':
      return integerIn(check, value, valueAt, -(2 ** 31), 2 ** 31 - 1) ?? undefined;
    case 'Counter32':
    case 'Gauge32':
    case 'TimeTicks':
      return integerIn(check, value, valueAt, 0, U32) ?? undefined;
    case 'IpAddress': {
      const ip = check.string(value, valueAt);
      if (ip !== null && !/^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(ip)) return void check.problem(valueAt, `must be an IPv4 address such as "10.0.0.1" (got ${describeValue(ip)})`);
      return ip ?? undefined;
    }
    case 'OID': {
      const oid = check.string(value, valueAt);
      if (oid !== null && !OID.test(oid)) return void check.problem(valueAt, `must be a numeric OID such as "1.3.6.1.4.1.8072" (got ${describeValue(oid)})`);
      return oid ?? undefined;
    }
    case 'Counter64': {
      // A decimal string keeps values past 2^53 exact.
      const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value : null;
      if (text === null || !/^\d+$/.test(text) || BigInt(text) > 2n ** 64n - 1n) return void check.problem(valueAt, `must be an integer 0–18446744073709551615, as a number or a decimal string (got ${describeValue(value)})`);
      const bytes = Buffer.alloc(8);
      bytes.writeBigUInt64BE(BigInt(text));
      return bytes;
    }
    case 'Opaque': {
      const hex = check.string(spec.hex, fieldPath(at, 'hex'));
      if (hex === null) return undefined;
      const clean = hex.replace(/[\s:]/g, '');
      if (!/^([0-9a-fA-F]{2})+$/.test(clean)) return void check.problem(fieldPath(at, 'hex'), `must be bytes in hex such as "9f78" (got ${describeValue(hex)})`);
      return Buffer.from(clean, 'hex');
    }
  }
}

function oidValue(check: FieldChecker, oid: string, spec: unknown, at: string): SnmpFixtureValue | null {
  if (typeof spec === 'string') return { oid, type: 'OctetString', value: spec, writable: false };
  if (typeof spec === 'number') {
    const n = check.integer(spec, at, -(2 ** 31), 2 ** 31 - 1);
    return n === null ? null : { oid, type: 'Integer', value: n, writable: false };
  }
  const o = check.object(spec, at);
  if (!o) return null;
  check.knownFields(o, at, VALUE_FIELDS);
  const type = check.oneOf(o.type, fieldPath(at, 'type'), SNMP_TYPES);
  if (type === null) return null;
  const writable = o.writable === undefined ? false : o.writable === true ? true : o.writable === false ? false : (check.problem(fieldPath(at, 'writable'), `must be true or false (got ${describeValue(o.writable)})`), false);
  if (o.hex !== undefined && type !== 'OctetString' && type !== 'Opaque') check.problem(fieldPath(at, 'hex'), `is only for OctetString and Opaque values`);
  if (o.hex !== undefined && o.value !== undefined) check.problem(at, 'gives both value and hex: one of them');
  const value = typedValue(check, type, o, at);
  return value === undefined ? null : { oid, type, value, writable };
}

function v3User(check: FieldChecker, spec: unknown, at: string): SnmpFixtureUser | null {
  const o = check.object(spec, at);
  if (!o) return null;
  check.knownFields(o, at, USER_FIELDS);
  const name = check.string(o.name, fieldPath(at, 'name'));
  const text = (field: (typeof USER_FIELDS)[number]) => (o[field] === undefined ? null : check.string(o[field], fieldPath(at, field)));
  const authKey = text('authKey');
  const privKey = text('privKey');
  const authProtocol = authKey === null ? null : (check.oneOf(o.authProtocol ?? 'sha', fieldPath(at, 'authProtocol'), AUTH_PROTOCOLS) ?? 'sha');
  const privProtocol = privKey === null ? null : (check.oneOf(o.privProtocol ?? 'aes', fieldPath(at, 'privProtocol'), PRIV_PROTOCOLS) ?? 'aes');
  if (privKey !== null && authKey === null) check.problem(fieldPath(at, 'authKey'), 'is required with privKey: SNMP v3 has no privacy without authentication');
  for (const [field, key] of [['authKey', authKey], ['privKey', privKey]] as const) {
    if (key !== null && key.length < MIN_V3_KEY_CHARS) check.problem(fieldPath(at, field), `must have at least ${MIN_V3_KEY_CHARS} characters`);
  }
  if (name === null) return null;
  return { name, level: privKey !== null ? 'authPriv' : authKey !== null ? 'authNoPriv' : 'noAuthNoPriv', authProtocol, authKey, privProtocol, privKey };
}

/** The section checked (problems go to `check`, under "snmp…"); null when it is unusable. */
export function parseSnmpFixture(spec: unknown, check: FieldChecker): SnmpFixture | null {
  const o = check.object(spec, 'snmp');
  if (!o) return null;
  check.knownFields(o, 'snmp', FIELDS);
  const port = o.port === undefined ? 161 : check.integer(o.port, 'snmp.port', 1, 65535);
  const community = o.community === undefined ? 'public' : check.string(o.community, 'snmp.community');
  const writeCommunity = o.writeCommunity === undefined ? null : check.string(o.writeCommunity, 'snmp.writeCommunity');
  if (community === '') check.problem('snmp.community', 'must not be empty');
  const users = o.v3Users === undefined ? [] : Array.isArray(o.v3Users) ? o.v3Users.map((u, i) => v3User(check, u, fieldPath('snmp.v3Users', i))) : (check.problem('snmp.v3Users', `must be a list of users such as { "name": "ops", "authKey": "…" } (got ${describeValue(o.v3Users)})`), []);
  const oids = check.object(o.oids, 'snmp.oids');
  const values: SnmpFixtureValue[] = [];
  if (oids) {
    if (Object.keys(oids).length === 0) check.problem('snmp.oids', 'must hold at least one OID, such as { "1.3.6.1.2.1.1.1.0": "My device" }');
    for (const [key, spec] of Object.entries(oids)) {
      const at = fieldPath('snmp.oids', key);
      const oid = key.startsWith('.') ? key.slice(1) : key;
      if (!OID.test(oid) || oid.split('.').length < 4 || oid.split('.').some((arc) => Number(arc) > U32)) {
        check.problem(at, 'the key must be a numeric OID of 4 arcs or more, such as "1.3.6.1.2.1.1.1.0"');
        continue;
      }
      const value = oidValue(check, oid, spec, at);
      if (value) values.push(value);
    }
    values.sort((a, b) => compareOids(a.oid, b.oid));
    // An object with a value has no children: one OID under another cannot be walked to.
    for (let i = 1; i < values.length; i++) {
      if (values[i]!.oid.startsWith(`${values[i - 1]!.oid}.`)) check.problem(fieldPath('snmp.oids', values[i]!.oid), `is under ${values[i - 1]!.oid}, which has a value itself: an OID with a value has no OIDs below it`);
      if (values[i]!.oid === values[i - 1]!.oid) check.problem(fieldPath('snmp.oids', values[i]!.oid), 'is given twice (with and without a leading dot)');
    }
  }
  if (port === null || community === null || !oids) return null;
  return { port, community, writeCommunity, v3Users: users.filter((u): u is SnmpFixtureUser => u !== null), values };
}
