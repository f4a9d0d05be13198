// What the host knows of a device a driver runs against.
export interface DeviceSpec {
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
}
