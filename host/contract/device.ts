// What the host knows of a device a driver runs against.
export interface DeviceSpec {
  /**
   * Stable identity of the device. Its cookie jar and connections are kept per id across
   * runs; without one, the device is known by its host name, IP and port map.
   */
  id?: string | number | null;
  /** IP address of the device. */
  ip?: string | null;
  /** Host name of the device; used for requests unless the driver passes useHostname: false. */
  host?: string | null;
  username?: string | null;
  password?: string | null;
  serial?: string | null;
  macAddress?: string | null;
  /** Port forwarding: the driver's port → the port actually dialled (simulators, NAT). */
  portMap?: Record<number, number>;
  /**
   * Only the ports of portMap are dialled (a simulator's device: another port of its address is
   * the host machine's own, never the device's): HTTP and TLS to another port are refused.
   */
  onlyMappedPorts?: boolean;
  /** How to reach the device's SNMP agent (D.device.createSNMPSession). */
  snmp?: SnmpSettings | null;
}

/** A device's SNMP settings: v1 / v2c with a community, or a v3 user. */
export interface SnmpSettings {
  version: 'v1' | 'v2c' | 'v3';
  /** v1 / v2c: the read community (and the write community, for set, when it differs). */
  community?: string;
  writeCommunity?: string;
  /** v3: the user and its keys. */
  user?: {
    name: string;
    level: 'noAuthNoPriv' | 'authNoPriv' | 'authPriv';
    authProtocol?: 'md5' | 'sha' | 'sha224' | 'sha256' | 'sha384' | 'sha512';
    authKey?: string;
    privProtocol?: 'des' | 'aes' | 'aes256b' | 'aes256r';
    privKey?: string;
  };
}

/** The key of a device's session (cookie jar, connections) in the host. */
export function deviceKey(device: DeviceSpec): string {
  if (device.id !== undefined && device.id !== null && device.id !== '') return `id:${String(device.id)}`;
  return `addr:${device.host ?? ''}|${device.ip ?? ''}|${JSON.stringify(device.portMap ?? {})}`;
}
