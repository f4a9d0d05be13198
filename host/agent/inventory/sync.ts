// Brings the store in line with an inventory, under the local agent, in one transaction:
// devices, library drivers and associations the inventory lists are added or updated (matched
// by name); those it made earlier and no longer lists are removed; those made through the API
// are left alone. Answers what changed, so a reload reschedules only what it must.
import { ensureLocalAgent } from '../../store/fleet/agents.js';
import { ASSOCIATION_CREDENTIAL_SCOPE, createAssociation, updateAssociationParameters } from '../../store/drivers/associations.js';
import { setDeviceCredentials } from '../../store/fleet/credentials.js';
import { createCustomDriver, deleteCustomDriver, findCustomDriverByName, getCustomDriverDefinition, updateCustomDriver, type CustomDriverDefinition } from '../../store/drivers/custom-drivers.js';
import { createDevice, deleteDevice, setSnmpAuthentication } from '../../store/fleet/devices.js';
import { snmpSettingsToApi } from '../../snmp-settings.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../../store/store.js';
import { driverCodeHash } from '../../store/drivers/inventory-driver-code.js';
import { InventoryError } from '../../contract/errors.js';
import { readOwnership, writeOwnership, type InventoryOwnership } from '../../store/drivers/ownership.js';
import { SyncView, type ViewDevice } from './sync-view.js';
import { associationKey, type Inventory, type InventoryAssociation, type InventoryDevice, type InventoryDriver } from './types.js';

export interface NamedId {
  name: string;
  id: number;
}

export interface ChangeSet {
  added: NamedId[];
  updated: NamedId[];
  removed: NamedId[];
}

/** An inventory association as the scheduler needs it. */
export interface ScheduledAssociation {
  id: number;
  /** `driver@device`. */
  name: string;
  driverId: number;
  deviceId: number;
  samplePeriod: number;
  actions: string[];
  enabled: boolean;
}

export interface InventorySyncResult {
  agentId: number;
  devices: ChangeSet;
  drivers: ChangeSet;
  /** Associations named `driver@device`; removed includes those deleted with their device or driver. */
  associations: ChangeSet;
  /** Ids of associations (of any origin) whose runs change: added, updated, or whose driver or device was updated. */
  reschedule: number[];
  /** Every association the inventory defines. */
  scheduled: ScheduledAssociation[];
  changed: boolean;
}

const emptyChanges = (): ChangeSet => ({ added: [], updated: [], removed: [] });

export async function syncInventory(store: Store, inventory: Inventory): Promise<InventorySyncResult> {
  return await store.transaction(async () => {
    // Agents of a cluster syncing one inventory into a shared store at once: one after the other.
    await store.lock('inventory');
    const agentId = (await ensureLocalAgent(store)).id;
    const owned = await readOwnership(store);
    const view = await SyncView.read(store, agentId);
    const result: InventorySyncResult = {
      agentId,
      devices: emptyChanges(),
      drivers: emptyChanges(),
      associations: emptyChanges(),
      reschedule: [],
      scheduled: [],
      changed: false,
    };
    const next: InventoryOwnership = { devices: {}, drivers: {}, associations: {} };
    // The operator's code, hashed as the inventory loaded it: the privilege of these drivers'
    // runs (any external host) follows this content, not the id an API key holder may reuse.
    const driverCode: Record<number, string> = {};
    const where = inventory.file ?? null;

    // Read once per driver: every association of a driver is checked against the same definition.
    const drivers = new Map<string, CustomDriverDefinition>();
    for (const d of inventory.drivers) {
      const driver = await guard(where, `drivers "${d.name}"`, async () => await syncDriver(store, d, owned, result.drivers));
      drivers.set(d.name, driver);
      next.drivers[d.name] = driver.id;
      driverCode[driver.id] = driverCodeHash(d.source);
    }
    for (const d of inventory.devices) next.devices[d.name] = await guard(where, `devices "${d.name}"`, async () => await syncDevice(store, agentId, d, owned, result.devices, view));
    for (const a of inventory.associations) {
      const key = associationKey(a);
      const driver = drivers.get(a.driver)!;
      const driverId = driver.id;
      const deviceId = next.devices[a.device]!.id;
      const id = await guard(where, `associations "${key}"`, async () => await syncAssociation(store, agentId, a, driver, deviceId, owned, result.associations, view));
      next.associations[key] = id;
      result.scheduled.push({ id, name: key, driverId, deviceId, samplePeriod: a.samplePeriod, actions: [...a.actions], enabled: a.enabled });
    }

    await removeUnlisted(store, agentId, owned, next, result, view);
    await writeOwnership(store, next, driverCode);

    const touched = new Set([...result.associations.added, ...result.associations.updated].map((a) => a.id));
    const updatedDrivers = new Set(result.drivers.updated.map((d) => d.id));
    const updatedDevices = new Set(result.devices.updated.map((d) => d.id));
    for (const a of view.allAssociations()) {
      if (updatedDrivers.has(a.driverId) || updatedDevices.has(a.deviceId)) touched.add(a.id);
    }
    result.reschedule = [...touched].sort((x, y) => x - y);
    result.changed = [result.devices, result.drivers, result.associations].some((c) => c.added.length + c.updated.length + c.removed.length > 0);
    return result;
  });
}

/** Store refusals name ids; say which inventory entry they are about. */
async function guard<T>(file: string | null, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof StoreError) throw new InventoryError(file, [`${what}: ${error.message}`]);
    throw error;
  }
}

function driverDefinition(d: InventoryDriver) {
  return {
    name: d.name,
    code: d.source,
    description: d.description,
    parameters: d.parameters.map((p) => ({ name: p.name, valueType: p.type, defaultValue: p.default, description: p.description })),
  };
}

function sameDriver(row: CustomDriverDefinition, d: InventoryDriver): boolean {
  const normal = (list: Array<{ name: string; type: string; default: unknown; description: string | null }>) =>
    JSON.stringify([...list].sort((a, b) => a.name.localeCompare(b.name)).map((p) => [p.name, p.type, p.default ?? null, p.description ?? null]));
  const stored = row.parameters.map((p) => ({ name: p.name, type: p.valueType, default: p.defaultValue, description: p.description }));
  return row.source === d.source && row.description === d.description && normal(stored) === normal(d.parameters);
}

async function syncDriver(store: Store, d: InventoryDriver, owned: InventoryOwnership, changes: ChangeSet): Promise<CustomDriverDefinition> {
  const id = owned.drivers[d.name];
  if (id !== undefined) {
    const stored = (await getCustomDriverDefinition(store, id))!;
    if (sameDriver(stored, d)) return stored;
    const updated = await updateCustomDriver(store, id, driverDefinition(d));
    changes.updated.push({ name: d.name, id });
    return updated;
  }
  const taken = await findCustomDriverByName(store, d.name);
  if (taken) {
    throw new StoreError('CONFLICT', `the library already has a driver named "${d.name}" (id ${taken.id}) made through the API; rename one of them`);
  }
  const created = await createCustomDriver(store, driverDefinition(d));
  changes.added.push({ name: d.name, id: created.id });
  return created;
}

function sameAddress(row: ViewDevice, d: InventoryDevice): boolean {
  const ports = (map: Record<string | number, number>) => JSON.stringify(Object.entries(map).map(([k, v]) => [Number(k), v]).sort((a, b) => a[0]! - b[0]!));
  return (
    row.displayName === d.name &&
    row.ip === d.ip &&
    row.hostName === d.host &&
    ports(row.portMap) === ports(d.portMap) &&
    row.macAddress === d.mac &&
    (row.details.serial ?? null) === d.serial
  );
}

async function syncDevice(
  store: Store,
  agentId: number,
  d: InventoryDevice,
  owned: InventoryOwnership,
  changes: ChangeSet,
  view: SyncView,
): Promise<{ id: number; credentials: boolean }> {
  const mine = owned.devices[d.name];
  let id: number;
  let updated = false;
  if (mine) {
    id = mine.id;
    const row = view.device(id)!;
    if (!sameAddress(row, d)) {
      const details: Record<string, string> = { ...row.details };
      if (d.serial === null) delete details.serial;
      else details.serial = d.serial;
      await store
        .statement('UPDATE devices SET display_name = ?, ip = ?, host_name = ?, port_map = ?, ip_addresses = ?, mac_address = ?, details = ? WHERE id = ?')
        .run(d.name, d.ip, d.host, JSON.stringify(d.portMap), JSON.stringify(d.ip ? [d.ip] : []), d.mac, JSON.stringify(details), id);
      updated = true;
    }
  } else {
    const taken = view.deviceNamed(d.name);
    if (taken !== undefined) throw new StoreError('CONFLICT', `the agent already has a device named "${d.name}" (id ${taken}) made through the API or a report; rename one of them`);
    id = (await createDevice(store, agentId, {
      displayName: d.name,
      ip: d.ip,
      hostName: d.host,
      portMap: d.portMap,
      macAddress: d.mac,
      details: d.serial === null ? {} : { serial: d.serial },
    })).id;
    view.addDevice(id, d.name);
    changes.added.push({ name: d.name, id });
  }
  if (d.credentials) {
    const current = view.credentials(id);
    if (current?.username !== d.credentials.username || current.password !== d.credentials.password) {
      await setDeviceCredentials(store, id, ASSOCIATION_CREDENTIAL_SCOPE, d.credentials);
      view.setCredentials(id, d.credentials);
      updated = updated || !!mine;
    }
  } else if (mine?.credentials) {
    // Credentials the inventory set and now leaves out are removed; others (set through the API) stay.
    await store.statement('DELETE FROM device_credentials WHERE device_id = ? AND scope = ?').run(id, ASSOCIATION_CREDENTIAL_SCOPE);
    view.setCredentials(id, null);
    updated = true;
  }
  if (d.snmp) {
    // Kept as the Public API keeps it; left alone when the inventory gives none (the API may have set it).
    const wanted = snmpSettingsToApi(d.snmp);
    if (JSON.stringify(view.snmp(id)) !== JSON.stringify(wanted)) {
      await setSnmpAuthentication(store, id, wanted);
      updated = updated || !!mine;
    }
  }
  if (updated) changes.updated.push({ name: d.name, id });
  return { id, credentials: d.credentials !== null };
}

const sortedJson = (values: Record<string, unknown>) => JSON.stringify(Object.entries(values).sort(([a], [b]) => a.localeCompare(b)));

async function syncAssociation(
  store: Store,
  agentId: number,
  a: InventoryAssociation,
  driver: CustomDriverDefinition,
  deviceId: number,
  owned: InventoryOwnership,
  changes: ChangeSet,
  view: SyncView,
): Promise<number> {
  const key = associationKey(a);
  const driverId = driver.id;
  const values = driver.parameters.map((p) => ({ parameterId: p.id, value: a.parameters[p.name] ?? null }));
  const status = a.enabled ? 'ENABLED' : 'DISABLED';
  // Inventory periods are any whole number of seconds (an agent may poll every 10 s), not only
  // the platform's list that createAssociation enforces, so period and status are set here.
  const setPeriodAndStatus = async (id: number) => {
    await store.statement('UPDATE custom_driver_associations SET sample_period = ?, status = ?, disabled_reason = NULL WHERE id = ?').run(a.samplePeriod, status, id);
    view.addAssociation({ id, driverId, deviceId, samplePeriod: a.samplePeriod, status });
  };
  const id = owned.associations[key];
  const row = id === undefined ? undefined : view.association(id);
  if (id !== undefined && row && row.driverId === driverId && row.deviceId === deviceId) {
    const sameValues = sortedJson(view.givenValues(id)) === sortedJson(a.parameters);
    if (!sameValues) await updateAssociationParameters(store, driverId, id, values);
    if (row.samplePeriod !== a.samplePeriod || row.status !== status) await setPeriodAndStatus(id);
    if (!sameValues || row.samplePeriod !== a.samplePeriod || row.status !== status) changes.updated.push({ name: key, id });
    return id;
  }
  const existing = view.associationOf(driverId, deviceId);
  if (existing !== undefined) throw new StoreError('CONFLICT', `driver "${a.driver}" is already applied to device "${a.device}" through the API (association ${existing}); delete that association or this entry`);
  if (driver.requiresCredentials && !view.hasDriverCredentials(deviceId)) {
    throw new StoreError('CONFLICT', `driver "${a.driver}" uses the device's credentials and device "${a.device}" has none: give the device credentials`);
  }
  const created = await createAssociation(store, { customDriverId: driverId, agentId, deviceId, parameters: values.filter((v) => v.value !== null) });
  await setPeriodAndStatus(created.id);
  changes.added.push({ name: key, id: created.id });
  return created.id;
}

async function associationName(store: Store, id: number): Promise<string> {
  const row = await store
    .statement<[number], { driver: string; device: string }>(
      `SELECT d.name AS driver, v.display_name AS device FROM custom_driver_associations a
       JOIN custom_drivers d ON d.id = a.custom_driver_id JOIN devices v ON v.id = a.device_id WHERE a.id = ?`,
    )
    .get(id);
  return row ? associationKey(row) : `association ${id}`;
}

async function removeAssociations(store: Store, ids: number[], changes: ChangeSet): Promise<void> {
  for (const id of ids) {
    const name = await associationName(store, id);
    if ((await store.statement('DELETE FROM custom_driver_associations WHERE id = ?').run(id)).changes > 0) changes.removed.push({ name, id });
  }
}

async function removeUnlisted(store: Store, agentId: number, owned: InventoryOwnership, next: InventoryOwnership, result: InventorySyncResult, view: SyncView): Promise<void> {
  const keptAssociations = new Set(Object.values(next.associations));
  await removeAssociations(store, Object.values(owned.associations).filter((id) => !keptAssociations.has(id)), result.associations);
  for (const [name, id] of Object.entries(owned.drivers)) {
    if (next.drivers[name] === id) continue;
    // A driver cannot stay without its code source: associations made on it through the API (any agent's) go with it.
    const onDriver = await store.statement<[number], { id: number }>('SELECT id FROM custom_driver_associations WHERE custom_driver_id = ?').all(id);
    await removeAssociations(store, onDriver.map((r) => r.id), result.associations);
    await deleteCustomDriver(store, id);
    result.drivers.removed.push({ name, id });
  }
  for (const [name, { id }] of Object.entries(owned.devices)) {
    if (next.devices[name]?.id === id) continue;
    await removeAssociations(store, view.associationsOnDevice(id), result.associations);
    await deleteDevice(store, agentId, id);
    result.devices.removed.push({ name, id });
  }
}
