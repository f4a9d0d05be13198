// A device's SNMP settings (DeviceSpec.snmp) from where users give them: `driverbox run`'s
// --snmp-* flags and DEVICE_SNMP_* values, an inventory's `snmp:` field (one flat shape for
// both, checked here with the field's name in every problem), and the store, which keeps them
// in the Public API's SnmpAuthentication shape (PUT …/snmp-authentication).
import type { SnmpSettings } from './contract/device.js';

/** The flat shape of the flags and of an inventory's `snmp:` field; every field optional. */
export interface SnmpInput {
  version?: unknown;
  community?: unknown;
  writeCommunity?: unknown;
  user?: unknown;
  authProtocol?: unknown;
  authKey?: unknown;
  privProtocol?: unknown;
  privKey?: unknown;
}

export const SNMP_INPUT_FIELDS = ['version', 'community', 'writeCommunity', 'user', 'authProtocol', 'authKey', 'privProtocol', 'privKey'] as const;

const VERSIONS: Record<string, SnmpSettings['version']> = { '1': 'v1', v1: 'v1', '2c': 'v2c', v2c: 'v2c', '2': 'v2c', v2: 'v2c', '3': 'v3', v3: 'v3' };
type AuthProtocol = NonNullable<NonNullable<SnmpSettings['user']>['authProtocol']>;
type PrivProtocol = NonNullable<NonNullable<SnmpSettings['user']>['privProtocol']>;
export const AUTH_PROTOCOLS: readonly AuthProtocol[] = ['md5', 'sha', 'sha224', 'sha256', 'sha384', 'sha512'];
export const PRIV_PROTOCOLS: readonly PrivProtocol[] = ['des', 'aes', 'aes256b', 'aes256r'];
/** USM turns a password into a key only from 8 characters on (RFC 3414). */
export const MIN_V3_KEY_CHARS = 8;

/**
 * The settings the input describes, or null when it gives nothing (the device keeps the
 * default: v2c, community "public"). Each problem goes to `problem(field, message)`; the answer
 * is only meaningful when there was none.
 */
export function snmpSettingsOf(input: SnmpInput, problem: (field: keyof SnmpInput, message: string) => void): SnmpSettings | null {
  const given = SNMP_INPUT_FIELDS.filter((f) => input[f] !== undefined && input[f] !== null);
  if (given.length === 0) return null;
  for (const field of given) if (typeof input[field] !== 'string') problem(field, `must be a string (got ${typeof input[field]})`);
  const text = (field: keyof SnmpInput) => (typeof input[field] === 'string' ? (input[field] as string) : undefined);
  let version: SnmpSettings['version'];
  const v = text('version');
  if (v !== undefined) {
    const known = VERSIONS[v.toLowerCase()];
    if (!known) {
      problem('version', `must be 1, 2c or 3 (got "${v}")`);
      return null;
    }
    version = known;
  } else {
    version = text('user') !== undefined ? 'v3' : 'v2c';
  }
  const v3Fields = (['user', 'authProtocol', 'authKey', 'privProtocol', 'privKey'] as const).filter((f) => text(f) !== undefined);
  if (version !== 'v3') {
    for (const f of v3Fields) problem(f, `is for SNMP v3 only (the version is ${version === 'v1' ? '1' : '2c'})`);
    for (const f of ['community', 'writeCommunity'] as const) if (text(f) === '') problem(f, 'must not be empty');
    return { version, community: text('community') ?? 'public', ...(text('writeCommunity') ? { writeCommunity: text('writeCommunity') } : {}) };
  }
  for (const f of ['community', 'writeCommunity'] as const) if (text(f) !== undefined) problem(f, 'is for SNMP v1 / v2c only: v3 uses a user (user, authKey, privKey)');
  const name = text('user');
  if (!name) problem('user', 'is required for SNMP v3 (the USM user name)');
  const authKey = text('authKey');
  const privKey = text('privKey');
  const authProtocol = (text('authProtocol') ?? 'sha').toLowerCase().replace('-', '') as AuthProtocol;
  const privProtocol = (text('privProtocol') ?? 'aes').toLowerCase().replace('-', '') as PrivProtocol;
  if (!AUTH_PROTOCOLS.includes(authProtocol)) problem('authProtocol', `must be one of ${AUTH_PROTOCOLS.join(', ')} (got "${text('authProtocol')}")`);
  if (!PRIV_PROTOCOLS.includes(privProtocol)) problem('privProtocol', `must be one of ${PRIV_PROTOCOLS.join(', ')} (got "${text('privProtocol')}")`);
  if (text('authProtocol') !== undefined && authKey === undefined) problem('authKey', 'is required with authProtocol');
  if (privKey !== undefined && authKey === undefined) problem('authKey', 'is required with privKey: SNMP v3 has no privacy without authentication');
  if (text('privProtocol') !== undefined && privKey === undefined) problem('privKey', 'is required with privProtocol');
  for (const [f, key] of [['authKey', authKey], ['privKey', privKey]] as const) {
    if (key !== undefined && key.length < MIN_V3_KEY_CHARS) problem(f, `must have at least ${MIN_V3_KEY_CHARS} characters (SNMP v3 refuses shorter passwords)`);
  }
  const level = privKey !== undefined ? 'authPriv' : authKey !== undefined ? 'authNoPriv' : 'noAuthNoPriv';
  return {
    version,
    user: {
      name: name ?? '',
      level,
      ...(authKey !== undefined ? { authProtocol, authKey } : {}),
      ...(privKey !== undefined ? { privProtocol, privKey } : {}),
    },
  };
}

/** The secrets the settings carry (communities, v3 keys), to mask. */
export function snmpSecrets(settings: SnmpSettings | null | undefined): string[] {
  if (!settings) return [];
  return [settings.community, settings.writeCommunity, settings.user?.authKey, settings.user?.privKey].filter((s): s is string => typeof s === 'string' && s !== '');
}

/** The Public API's SnmpAuthentication (as the store keeps it). */
export interface ApiSnmpAuthentication {
  version: 'V1' | 'V2' | 'V3_NO_AUTH' | 'V3_AUTH_NO_PRIV' | 'V3_AUTH_PRIV';
  username?: string;
  authentication_protocol?: string;
  authentication_key?: string;
  encryption_protocol?: string;
  encryption_key?: string;
  snmp_read_community?: string;
  snmp_write_community?: string;
}

const API_AUTH: Record<string, AuthProtocol> = { MD5: 'md5', SHA: 'sha', 'SHA-224': 'sha224', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };
const API_PRIV: Record<string, PrivProtocol> = { DES: 'des', AES: 'aes', 'AES-256B': 'aes256b', 'AES-256R': 'aes256r' };
const LEVELS = { V3_NO_AUTH: 'noAuthNoPriv', V3_AUTH_NO_PRIV: 'authNoPriv', V3_AUTH_PRIV: 'authPriv' } as const;

/** The settings a stored SnmpAuthentication gives a run. */
export function snmpSettingsFromApi(auth: ApiSnmpAuthentication | undefined | null): SnmpSettings | null {
  if (!auth) return null;
  if (auth.version === 'V1' || auth.version === 'V2') {
    return {
      version: auth.version === 'V1' ? 'v1' : 'v2c',
      community: auth.snmp_read_community || 'public',
      ...(auth.snmp_write_community ? { writeCommunity: auth.snmp_write_community } : {}),
    };
  }
  const level = LEVELS[auth.version];
  if (!level) return null;
  return {
    version: 'v3',
    user: {
      name: auth.username ?? '',
      level,
      ...(level !== 'noAuthNoPriv' ? { authProtocol: API_AUTH[auth.authentication_protocol ?? 'SHA'] ?? 'sha', authKey: auth.authentication_key ?? '' } : {}),
      ...(level === 'authPriv' ? { privProtocol: API_PRIV[auth.encryption_protocol ?? 'AES'] ?? 'aes', privKey: auth.encryption_key ?? '' } : {}),
    },
  };
}

/** The SnmpAuthentication the store keeps for these settings (an inventory's `snmp:`). */
export function snmpSettingsToApi(settings: SnmpSettings): ApiSnmpAuthentication {
  if (settings.version !== 'v3') {
    return {
      version: settings.version === 'v1' ? 'V1' : 'V2',
      snmp_read_community: settings.community ?? 'public',
      ...(settings.writeCommunity ? { snmp_write_community: settings.writeCommunity } : {}),
    };
  }
  const user = settings.user!;
  const apiAuth = Object.keys(API_AUTH).find((k) => API_AUTH[k] === user.authProtocol);
  const apiPriv = Object.keys(API_PRIV).find((k) => API_PRIV[k] === user.privProtocol);
  const version = user.level === 'authPriv' ? 'V3_AUTH_PRIV' : user.level === 'authNoPriv' ? 'V3_AUTH_NO_PRIV' : 'V3_NO_AUTH';
  return {
    version,
    username: user.name,
    ...(user.level !== 'noAuthNoPriv' ? { authentication_protocol: apiAuth ?? 'SHA', authentication_key: user.authKey ?? '' } : {}),
    ...(user.level === 'authPriv' ? { encryption_protocol: apiPriv ?? 'AES', encryption_key: user.privKey ?? '' } : {}),
  };
}
