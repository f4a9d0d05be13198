// The inventory as the agent uses it once loaded: every reference resolved (environment
// variables read, driver files read, association periods and actions settled), so syncing it
// into the store needs neither the file system nor the environment.
import type { DeviceCredentials } from '../../store/fleet/credentials.js';
import type { ParameterValueType } from '../../store/drivers/driver-input.js';
import type { SnmpSettings } from '../../contract/device.js';

export const INVENTORY_VERSION = 1;

/** The action a driver runs on schedule when its `actions` are not given. */
export const DEFAULT_ACTIONS: readonly string[] = ['get_status'];

/** Seconds between two runs of an association when neither its driver nor it says otherwise. */
export const DEFAULT_SAMPLE_PERIOD = 300;
export const MAX_SAMPLE_PERIOD = 86_400;

export interface InventoryDevice {
  name: string;
  ip: string | null;
  host: string | null;
  /** Device port → port actually dialled. */
  portMap: Record<number, number>;
  credentials: DeviceCredentials | null;
  mac: string | null;
  serial: string | null;
  /** SNMP settings for D.device.createSNMPSession, kept in the store; null: none given (the store's stay). */
  snmp: SnmpSettings | null;
}

export interface InventoryParameter {
  name: string;
  type: ParameterValueType;
  /** null: no default (every association must give a value). */
  default: unknown;
  description: string | null;
}

export interface InventoryDriver {
  name: string;
  /** Absolute path of the driver script. */
  path: string;
  source: string;
  description: string | null;
  parameters: InventoryParameter[];
  samplePeriod: number;
  /** get_status, validate, backup or custom_N, in the order given. */
  actions: string[];
}

export interface InventoryAssociation {
  driver: string;
  device: string;
  /** Parameter name → value given here; parameters left out take the driver's default. */
  parameters: Record<string, unknown>;
  /** The association's own period, else its driver's. */
  samplePeriod: number;
  /** Its driver's actions. */
  actions: string[];
  enabled: boolean;
}

export interface Inventory {
  /** The file it was read from (absolute), or null for text given directly. */
  file: string | null;
  version: typeof INVENTORY_VERSION;
  devices: InventoryDevice[];
  drivers: InventoryDriver[];
  associations: InventoryAssociation[];
}

/** How associations are named in messages and change lists: `driver@device`. */
export function associationKey(association: { driver: string; device: string }): string {
  return `${association.driver}@${association.device}`;
}
