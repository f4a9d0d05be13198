// Records of the inventory operations (reference 1.14.0): an inventory field as the account
// defines it, the body that defines or relabels one, and a device's value of a field.
import { dateTime } from '../route-schema.js';

export interface WriteInventoryField {
  /** What the field is for (documentation). */
  label: string;
}

export interface InventoryField extends WriteInventoryField {
  key: string;
  creation_time?: string;
  /** The user who defined the field; only they may change or delete it. */
  defined_by_user?: number;
}

export interface DeviceInventoryField {
  key: string;
  value: string;
  creation_time?: string;
}

/** Inventory keys: the path segment that names a field (Fastify answers 414 for a longer path parameter). */
export const INVENTORY_KEY_MAX = 100;
/** Labels and values: generous bounds for one stored text. */
export const INVENTORY_LABEL_MAX = 1024;
export const INVENTORY_VALUE_MAX = 4096;

export const inventoryKeyParam = {
  type: 'string',
  minLength: 1,
  maxLength: INVENTORY_KEY_MAX,
  // No control characters: a key is shown and sent back in paths.
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
  description: `Field identifier, unique within the Inventory (1 to ${INVENTORY_KEY_MAX} characters, no control characters)`,
} as const;

export const writeInventoryFieldSchema = {
  type: 'object',
  description: 'Defines or relabels an inventory field',
  required: ['label'],
  additionalProperties: false,
  properties: { label: { type: 'string', maxLength: INVENTORY_LABEL_MAX, description: 'A detailed description of the field, for documentation' } },
} as const;

export const inventoryFieldSchema = {
  type: 'object',
  description: 'An inventory field of the account',
  required: ['key', 'label'],
  properties: {
    key: { type: 'string', description: 'The name of the field, unique in the Inventory' },
    label: { type: 'string', description: 'A detailed description of the field, for documentation' },
    creation_time: dateTime,
    defined_by_user: { type: 'integer', description: 'The id of the user that defined the field; only they may change or delete it' },
  },
} as const;

export const deviceInventoryFieldSchema = {
  type: 'object',
  description: "A device's value of an inventory field",
  required: ['key', 'value'],
  properties: {
    key: { type: 'string', description: 'The name of the field, unique in the Inventory' },
    value: { type: 'string' },
    creation_time: { ...dateTime, description: "When the device's value was first set, yyyy-mm-ddThh:mm:ss in UTC" },
  },
} as const;

export const inventoryValueBodySchema = {
  type: 'string',
  maxLength: INVENTORY_VALUE_MAX,
  description: `The value, a JSON string (or the text itself as text/plain); at most ${INVENTORY_VALUE_MAX} characters, never null`,
} as const;
