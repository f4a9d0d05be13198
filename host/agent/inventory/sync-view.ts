// What an inventory sync compares against, read from the store in a few statements at its start
// (the agent's devices, associations, given parameter values and credentials), instead of a
// handful of statements per inventory entry: a sync of 10,000 devices then costs statements in
// proportion to what changed, not to what is listed. The sync keeps the view up to date with
// what it writes, so later entries see earlier ones.
import { DRIVER_CREDENTIAL_SCOPES, type DeviceCredentials } from '../../store/fleet/credentials.js';
import { ASSOCIATION_CREDENTIAL_SCOPE } from '../../store/drivers/associations.js';
import { parseJsonColumn } from '../../store/db/json-column.js';
import type { Store } from '../../store/store.js';

/** A device as the sync compares it with the inventory (its address; not the whole row). */
export interface ViewDevice {
  displayName: string;
  ip: string | null;
  hostName: string | null;
  portMap: Record<string, number>;
  macAddress: string | null;
  details: Record<string, string>;
}

/** An association as the sync compares it. */
export interface ViewAssociation {
  id: number;
  driverId: number;
  deviceId: number;
  samplePeriod: number;
  status: string;
}

export class SyncView {
  readonly #store: Store;
  readonly #devices = new Map<number, ViewDevice>();
  /** Device name → the oldest device of the agent with that name. */
  readonly #deviceByName = new Map<string, number>();
  readonly #sealedSnmp = new Map<number, string>();
  readonly #associations = new Map<number, ViewAssociation>();
  readonly #associationByPair = new Map<string, number>();
  #byDevice: Map<number, number[]> | null = null;
  /** Association id → parameter name → JSON text of the value given (not the default). */
  readonly #given = new Map<number, Map<string, string>>();
  /** Device id → credentials of the scope the inventory sets: sealed as read, plain as the sync wrote them. */
  readonly #credentials = new Map<number, { username: string; sealed: string } | DeviceCredentials>();
  /** Devices with credentials of the other scopes a driver run may use. */
  readonly #otherCredentials = new Set<number>();

  private constructor(store: Store) {
    this.#store = store;
  }

  static async read(store: Store, agentId: number): Promise<SyncView> {
    const view = new SyncView(store);
    const devices = await store
      .statement<[number], { id: number; display_name: string; ip: string | null; host_name: string | null; port_map: string; mac_address: string | null; details: string; snmp_authentication: string | null }>(
        'SELECT id, display_name, ip, host_name, port_map, mac_address, details, snmp_authentication FROM devices WHERE agent_id = ? ORDER BY id',
      )
      .all(agentId);
    for (const row of devices) {
      view.#devices.set(row.id, {
        displayName: row.display_name,
        ip: row.ip,
        hostName: row.host_name,
        portMap: parseJsonColumn(row.port_map, {}),
        macAddress: row.mac_address,
        details: parseJsonColumn(row.details, {}),
      });
      if (!view.#deviceByName.has(row.display_name)) view.#deviceByName.set(row.display_name, row.id);
      if (row.snmp_authentication) view.#sealedSnmp.set(row.id, row.snmp_authentication);
    }
    const associations = await store
      .statement<[number], { id: number; custom_driver_id: number; device_id: number; sample_period: number; status: string }>(
        'SELECT id, custom_driver_id, device_id, sample_period, status FROM custom_driver_associations WHERE agent_id = ?',
      )
      .all(agentId);
    for (const a of associations) view.addAssociation({ id: a.id, driverId: a.custom_driver_id, deviceId: a.device_id, samplePeriod: a.sample_period, status: a.status });
    const given = await store
      .statement<[number], { association_id: number; name: string; value: string }>(
        `SELECT ap.association_id, p.name, ap.value FROM custom_driver_association_parameters ap
           JOIN custom_driver_parameters p ON p.id = ap.parameter_id
           JOIN custom_driver_associations a ON a.id = ap.association_id
          WHERE a.agent_id = ? AND ap.value IS NOT NULL`,
      )
      .all(agentId);
    for (const g of given) {
      let values = view.#given.get(g.association_id);
      if (!values) view.#given.set(g.association_id, (values = new Map()));
      values.set(g.name, g.value);
    }
    const marks = DRIVER_CREDENTIAL_SCOPES.map(() => '?').join(', ');
    const credentials = await store
      .statement<[number, ...string[]], { device_id: number; scope: string; username: string; password_sealed: string }>(
        `SELECT c.device_id, c.scope, c.username, c.password_sealed FROM device_credentials c JOIN devices v ON v.id = c.device_id
          WHERE v.agent_id = ? AND c.scope IN (${marks})`,
      )
      .all(agentId, ...DRIVER_CREDENTIAL_SCOPES);
    for (const c of credentials) {
      if (c.scope === ASSOCIATION_CREDENTIAL_SCOPE) view.#credentials.set(c.device_id, { username: c.username, sealed: c.password_sealed });
      else view.#otherCredentials.add(c.device_id);
    }
    return view;
  }

  device(id: number): ViewDevice | undefined {
    return this.#devices.get(id);
  }

  deviceNamed(name: string): number | undefined {
    return this.#deviceByName.get(name);
  }

  addDevice(id: number, name: string): void {
    if (!this.#deviceByName.has(name)) this.#deviceByName.set(name, id);
  }

  /** The device's SNMP settings as stored (unsealed), or undefined. */
  snmp(deviceId: number): unknown {
    const sealed = this.#sealedSnmp.get(deviceId);
    return sealed === undefined ? undefined : JSON.parse(this.#store.secrets.decrypt(sealed));
  }

  /** The credentials of the scope the inventory sets (unsealed), or undefined. */
  credentials(deviceId: number): DeviceCredentials | undefined {
    const kept = this.#credentials.get(deviceId);
    if (!kept || !('sealed' in kept)) return kept;
    return { username: kept.username, password: this.#store.secrets.decrypt(kept.sealed) };
  }

  /** The sync set (or, null, removed) the device's credentials of the inventory's scope. */
  setCredentials(deviceId: number, credentials: DeviceCredentials | null): void {
    if (credentials) this.#credentials.set(deviceId, credentials);
    else this.#credentials.delete(deviceId);
  }

  hasDriverCredentials(deviceId: number): boolean {
    return this.#credentials.has(deviceId) || this.#otherCredentials.has(deviceId);
  }

  association(id: number): ViewAssociation | undefined {
    return this.#associations.get(id);
  }

  /** The association of this driver on this device, if there is one. */
  associationOf(driverId: number, deviceId: number): number | undefined {
    return this.#associationByPair.get(`${driverId}:${deviceId}`);
  }

  addAssociation(a: ViewAssociation): void {
    this.#associations.set(a.id, a);
    this.#associationByPair.set(`${a.driverId}:${a.deviceId}`, a.id);
    this.#byDevice = null;
  }

  /** Associations on a device (all of its agent's, as the device is), grouped once when first asked. */
  associationsOnDevice(deviceId: number): number[] {
    if (!this.#byDevice) {
      this.#byDevice = new Map();
      for (const a of this.#associations.values()) {
        const ids = this.#byDevice.get(a.deviceId);
        if (ids) ids.push(a.id);
        else this.#byDevice.set(a.deviceId, [a.id]);
      }
    }
    return this.#byDevice.get(deviceId) ?? [];
  }

  allAssociations(): Iterable<ViewAssociation> {
    return this.#associations.values();
  }

  /** The values given to an association (not the defaults), by parameter name. */
  givenValues(associationId: number): Record<string, unknown> {
    return Object.fromEntries([...(this.#given.get(associationId) ?? [])].map(([name, json]) => [name, JSON.parse(json) as unknown]));
  }
}
