// A net-snmp session for one call, made from the device's SNMP settings (v1 / v2c community
// or a v3 user; v2c "public" when the device has none) and the call's options, to the
// address ctx.endpoint() gives and nowhere else.
import net from 'node:net';
import snmp from 'net-snmp';
import type { SnmpSettings } from '../../contract/device.js';
import type { SnmpCall } from './options.js';
import type { SnmpSocketGuard } from './guarded-socket.js';

/** What a device without SNMP settings is asked with, as the platform does. */
export const DEFAULT_SNMP_SETTINGS: Readonly<SnmpSettings> = Object.freeze({ version: 'v2c', community: 'public' });

/** One retry, as the platform: a silent agent fails after about 2 × timeout. */
export const SNMP_RETRIES = 1;

const versions = { v1: snmp.Version1, v2c: snmp.Version2c } as const;

/** A short description for the transcript and errors: "v2c" or "v3 user ops (authPriv)". */
export function describeSettings(settings: SnmpSettings): string {
  return settings.version === 'v3' ? `v3 user ${settings.user?.name ?? '?'} (${settings.user?.level ?? 'noAuthNoPriv'})` : settings.version;
}

/**
 * Opens the session (a UDP socket, made and watched by `guard`); the caller closes it.
 * `write`: set uses the write community.
 */
export function openSession(endpoint: { host: string; port: number }, settings: SnmpSettings, call: SnmpCall, write: boolean, guard: SnmpSocketGuard): snmp.Session {
  const options: snmp.SessionOptions & Record<string, unknown> = {
    port: endpoint.port,
    retries: SNMP_RETRIES,
    timeout: call.timeoutMs,
    transport: net.isIPv6(endpoint.host) ? 'udp6' : 'udp4',
    // An agent answering OIDs that do not increase would make a walk loop: net-snmp refuses them.
    backwardsGetNexts: false,
    dgramModule: guard.dgramModule,
  };
  let session: snmp.Session;
  if (settings.version === 'v3') {
    const user = settings.user;
    if (!user) throw new Error('the device\'s SNMP v3 settings have no user');
    const level = snmp.SecurityLevel[user.level];
    session = snmp.createV3Session(endpoint.host, {
      name: user.name,
      level,
      ...(user.level !== 'noAuthNoPriv' ? { authProtocol: snmp.AuthProtocols[user.authProtocol ?? 'sha'], authKey: user.authKey ?? '' } : {}),
      ...(user.level === 'authPriv' ? { privProtocol: snmp.PrivProtocols[user.privProtocol ?? 'aes'], privKey: user.privKey ?? '' } : {}),
    }, { ...options, version: snmp.Version3 });
  } else {
    const community = (write ? settings.writeCommunity || settings.community : settings.community) || 'public';
    session = snmp.createSession(endpoint.host, community, { ...options, version: versions[settings.version] });
  }
  // A datagram net-snmp cannot decode is emitted as 'error' (without a listener it would end
  // the host): the guard ends the call when the datagram answers it.
  session.on('error', (error: unknown) => guard.undecodable(error));
  return session;
}
