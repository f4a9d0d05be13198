// The custom inventory (tag "inventory", reference 1.14.0): fields defined once for the
// account, and each device's values of them. Stored: what is set is what is listed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OWNER_USER_ID } from '../../../store/account/company.js';
import {
  clearInventory,
  createInventoryField,
  deleteDeviceInventoryValue,
  deleteInventoryField,
  getInventoryField,
  listDeviceInventory,
  listInventoryFields,
  setDeviceInventoryValue,
  updateInventoryField,
  type InventoryFieldRow,
} from '../../../store/account/inventory.js';
import type { Store } from '../../../store/store.js';
import { formatApiTime } from '../../../store/db/time.js';
import { requireDevice } from '../access.js';
import { ApiError, conflict, invalid, notFound } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import {
  deviceInventoryFieldSchema,
  inventoryFieldSchema,
  inventoryKeyParam,
  inventoryValueBodySchema,
  writeInventoryFieldSchema,
  type DeviceInventoryField,
  type InventoryField,
  type WriteInventoryField,
} from '../schemas/inventory.js';

const TAGS = ['inventory'];
type FieldParams = { inventory_field: string };
type DeviceFieldParams = FieldParams & { agent_id: number; device_id: number };

const fieldParams = { type: 'object', required: ['inventory_field'], properties: { inventory_field: inventoryKeyParam } } as const;
const deviceFieldParams = {
  type: 'object',
  required: ['agent_id', 'device_id', 'inventory_field'],
  properties: { ...idParams('agent_id', 'device_id').properties, inventory_field: inventoryKeyParam },
} as const;

const fieldRecord = (f: InventoryFieldRow): InventoryField => ({
  key: f.key,
  label: f.label,
  creation_time: formatApiTime(f.creationTime),
  defined_by_user: f.definedByUser,
});

async function requireField(store: Store, key: string): Promise<InventoryFieldRow> {
  const field = await getInventoryField(store, key);
  if (!field) throw notFound('inventory field', key);
  return field;
}

/** The reference: a field defined by another user can't be changed or deleted. */
async function requireOwnField(store: Store, key: string): Promise<InventoryFieldRow> {
  const field = await requireField(store, key);
  if (field.definedByUser !== OWNER_USER_ID) {
    throw new ApiError(403, 'FIELD_OF_ANOTHER_USER', `inventory field ${key} was defined by user ${field.definedByUser}; only that user may change or delete it`);
  }
  return field;
}

/** The value a client sent: a JSON string, or the text itself as text/plain. Never null. */
async function refuseNullValue(request: FastifyRequest): Promise<void> {
  if (request.body === null || request.body === undefined) throw invalid(['body'], "can't be null: send the value as a JSON string");
  if (typeof request.body !== 'string') throw invalid(['body'], 'must be a string (a JSON string, or text/plain)', 'type');
}

export function registerInventoryRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  const list: ApiRouteSchema = {
    operationId: 'getInventory',
    tags: TAGS,
    summary: 'Enumerates all the Inventory fields',
    description: 'Oldest first.',
    response: { 200: { type: 'array', items: inventoryFieldSchema } },
  };
  app.get('/inventory', { schema: list }, async (): Promise<InventoryField[]> => (await listInventoryFields(store)).map(fieldRecord));

  const clear: ApiRouteSchema = {
    operationId: 'deleteInventory',
    tags: TAGS,
    summary: 'Clears the inventory',
    description: "Deletes the fields this user defined, with every device's values of them.",
    response: { 204: { type: 'null' } },
  };
  app.delete('/inventory', { schema: clear }, async (_request, reply) => {
    await clearInventory(store, OWNER_USER_ID);
    return reply.code(204).send();
  });

  const create: ApiRouteSchema = {
    operationId: 'createInventoryField',
    tags: TAGS,
    summary: 'Creates an Inventory Field: a key every device may then have a value of',
    description: '409 when a field with that key exists.',
    params: fieldParams,
    body: writeInventoryFieldSchema,
    response: { 201: { type: 'null', description: 'The field is referred to by its key' } },
  };
  app.post<{ Params: FieldParams; Body: WriteInventoryField }>('/inventory/:inventory_field', { schema: create }, async (request, reply) => {
    const key = request.params.inventory_field;
    if (!await createInventoryField(store, key, request.body.label)) throw conflict(`inventory field ${key} exists; change its label with updateInventoryField`);
    return reply.code(201).send();
  });

  const update: ApiRouteSchema = {
    operationId: 'updateInventoryField',
    tags: TAGS,
    summary: "Updates the Inventory Field's label",
    params: fieldParams,
    body: writeInventoryFieldSchema,
    response: { 204: { type: 'null' } },
  };
  app.put<{ Params: FieldParams; Body: WriteInventoryField }>('/inventory/:inventory_field', { schema: update }, async (request, reply) => {
    await requireOwnField(store, request.params.inventory_field);
    await updateInventoryField(store, request.params.inventory_field, request.body.label);
    return reply.code(204).send();
  });

  const remove: ApiRouteSchema = {
    operationId: 'deleteInventoryField',
    tags: TAGS,
    summary: "Deletes the Inventory Field, with every device's value of it",
    params: fieldParams,
    response: { 204: { type: 'null' } },
  };
  app.delete<{ Params: FieldParams }>('/inventory/:inventory_field', { schema: remove }, async (request, reply) => {
    await requireOwnField(store, request.params.inventory_field);
    await deleteInventoryField(store, request.params.inventory_field);
    return reply.code(204).send();
  });

  const deviceList: ApiRouteSchema = {
    operationId: 'getDeviceInventory',
    tags: TAGS,
    summary: "Returns the device's inventory data",
    description: 'The fields set on the device, by key. A field the device has no value of is left out (the reference types `value` as a string, never null).',
    params: idParams('agent_id', 'device_id'),
    response: { 200: { type: 'array', items: deviceInventoryFieldSchema } },
  };
  app.get<{ Params: { agent_id: number; device_id: number } }>(
    '/agent/:agent_id/device/:device_id/inventory',
    { schema: deviceList },
    async (request): Promise<DeviceInventoryField[]> => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      return (await listDeviceInventory(store, device.id)).map((v) => ({ key: v.key, value: v.value, creation_time: formatApiTime(v.creationTime) }));
    },
  );

  const setValue: ApiRouteSchema = {
    operationId: 'setDeviceInventoryFieldValue',
    tags: TAGS,
    summary: 'Sets the value of an Inventory field for the device, a value can\'t be set to `null`',
    description: '404 when the field is not defined (createInventoryField first).',
    params: deviceFieldParams,
    body: inventoryValueBodySchema,
    response: { 204: { type: 'null' } },
  };
  app.put<{ Params: DeviceFieldParams; Body: string }>(
    '/agent/:agent_id/device/:device_id/inventory/:inventory_field',
    { schema: setValue, preValidation: refuseNullValue },
    async (request, reply) => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      const field = await requireField(store, request.params.inventory_field);
      await setDeviceInventoryValue(store, device.id, field.key, request.body);
      return reply.code(204).send();
    },
  );

  const deleteValue: ApiRouteSchema = {
    operationId: 'deleteDeviceInventoryField',
    tags: TAGS,
    summary: "Deletes the device's value of the Inventory field",
    description: '404 when the field is not defined; 204 when the device had no value of it.',
    params: deviceFieldParams,
    response: { 204: { type: 'null' } },
  };
  app.delete<{ Params: DeviceFieldParams }>('/agent/:agent_id/device/:device_id/inventory/:inventory_field', { schema: deleteValue }, async (request, reply) => {
    const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
    const field = await requireField(store, request.params.inventory_field);
    await deleteDeviceInventoryValue(store, device.id, field.key);
    return reply.code(204).send();
  });
}
