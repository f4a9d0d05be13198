// `driverbox run`'s SNMP settings: --snmp-* flags, else DEVICE_SNMP_* values (environment or
// .env; the emulator's names too). Any flag given: the flags alone count.
import type { SnmpSettings } from '../contract/device.js';
import { snmpSettingsOf, type SnmpInput } from '../snmp-settings.js';
import { UsageError } from '../contract/errors.js';

export const snmpFlagOptions = {
  'snmp-version': { type: 'string' },
  'snmp-community': { type: 'string' },
  'snmp-write-community': { type: 'string' },
  'snmp-user': { type: 'string' },
  'snmp-auth-protocol': { type: 'string' },
  'snmp-auth-key': { type: 'string' },
  'snmp-priv-protocol': { type: 'string' },
  'snmp-priv-key': { type: 'string' },
} as const;

export const snmpFlagsHelp = `  --snmp-version <1|2c|3>          SNMP version for D.device.createSNMPSession (env DEVICE_SNMP_VERSION;
                                   default 2c, or 3 with --snmp-user)
  --snmp-community <text>          v1 / v2c read community (env DEVICE_SNMP_COMMUNITY; default public)
  --snmp-write-community <text>    v1 / v2c community for set (env DEVICE_SNMP_WRITE_COMMUNITY;
                                   default the read community)
  --snmp-user <name>               v3 user (env DEVICE_SNMP_USER)
  --snmp-auth-protocol <p>         v3: md5, sha (default), sha224, sha256, sha384, sha512
  --snmp-auth-key <text>           v3 authentication password, 8+ characters (env DEVICE_SNMP_AUTH_KEY)
  --snmp-priv-protocol <p>         v3: des, aes (default), aes256b, aes256r
  --snmp-priv-key <text>           v3 privacy password, 8+ characters (env DEVICE_SNMP_PRIV_KEY)`;

const FLAG_OF: Record<keyof SnmpInput, keyof typeof snmpFlagOptions> = {
  version: 'snmp-version',
  community: 'snmp-community',
  writeCommunity: 'snmp-write-community',
  user: 'snmp-user',
  authProtocol: 'snmp-auth-protocol',
  authKey: 'snmp-auth-key',
  privProtocol: 'snmp-priv-protocol',
  privKey: 'snmp-priv-key',
};
/** Environment names of each setting: driverbox's first, then the official emulator's .env names. */
const ENV_OF: Record<keyof SnmpInput, string[]> = {
  version: ['DEVICE_SNMP_VERSION'],
  community: ['DEVICE_SNMP_COMMUNITY', 'DEVICE_SNMP_READ_COMMUNITY'],
  writeCommunity: ['DEVICE_SNMP_WRITE_COMMUNITY'],
  user: ['DEVICE_SNMP_USER', 'DEVICE_SNMP_USERNAME'],
  authProtocol: ['DEVICE_SNMP_AUTH_PROTOCOL', 'DEVICE_SNMP_AUTHENTICATION_PROTOCOL'],
  authKey: ['DEVICE_SNMP_AUTH_KEY', 'DEVICE_SNMP_AUTHENTICATION_KEY'],
  privProtocol: ['DEVICE_SNMP_PRIV_PROTOCOL', 'DEVICE_SNMP_ENCRYPTION_PROTOCOL'],
  privKey: ['DEVICE_SNMP_PRIV_KEY', 'DEVICE_SNMP_ENCRYPTION_KEY'],
};

/** The device's SNMP settings from the flags, else the environment; null when neither gives any. */
export function snmpSettingsFromFlags(values: Partial<Record<keyof typeof snmpFlagOptions, string | undefined>>, env: Record<string, string | undefined>): SnmpSettings | null {
  const fields = Object.keys(FLAG_OF) as Array<keyof SnmpInput>;
  const fromFlags = fields.some((f) => values[FLAG_OF[f]] !== undefined);
  const input: SnmpInput = {};
  const source: Partial<Record<keyof SnmpInput, string>> = {};
  for (const f of fields) {
    // An empty value is unset: the emulator's .env.sample lists every name with none.
    const name = fromFlags ? `--${FLAG_OF[f]}` : ENV_OF[f].find((n) => env[n] !== undefined && env[n] !== '');
    const value = fromFlags ? values[FLAG_OF[f]] : name === undefined ? undefined : env[name];
    if (value === undefined) continue;
    input[f] = value;
    source[f] = name;
  }
  const problems: string[] = [];
  const settings = snmpSettingsOf(input, (field, message) => problems.push(`${source[field] ?? (fromFlags ? `--${FLAG_OF[field]}` : ENV_OF[field][0])} ${message}`));
  if (problems.length) throw new UsageError(problems.join('\n'));
  return settings;
}
