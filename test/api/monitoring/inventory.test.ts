// The custom inventory (reference 1.14.0) through MonitoringClient against a real server: fields
// defined for the account, values per device, each 2xx answer validated against the reference,
// and the documented errors.
import { describe, expect, it } from 'vitest';
import { MonitoringApiError } from '../../../host/api/monitoring/client/index.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { deleteDevice, createDevice } from '../../../host/store/fleet/devices.js';
import { createInventoryField } from '../../../host/store/account/inventory.js';
import { startMonitoringFixture, TEST_API_KEY } from '../../helpers/monitoring.js';
import { expectReferenceBody } from '../../helpers/reference-schema.js';

const api = await startMonitoringFixture();
const { client, store, clock, server } = api;
const agent = await createAgentRecord(store, { displayName: 'office' });
const other = await createAgentRecord(store, { displayName: 'elsewhere' });
const locked = await createAgentRecord(store, { displayName: 'no api', apiEnabled: false });
const printer = await createDevice(store, agent.id, { displayName: 'printer', ip: '10.0.0.20' });
const nas = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.21' });
const lockedDevice = await createDevice(store, locked.id, { displayName: 'hidden', ip: '10.0.0.22' });

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error;
}

/** A raw request, as a client that is not MonitoringClient sends it. */
function put(path: string, body: string, contentType: string): Promise<Response> {
  return fetch(`${server.url}/public-api/v1${path}`, { method: 'PUT', headers: { 'x-api-key': TEST_API_KEY, 'content-type': contentType }, body });
}

describe('inventory fields', () => {
  it('starts empty', async () => {
    const fields = await client.getInventory();
    expect(fields).toEqual([]);
    expectReferenceBody('getInventory', fields);
  });

  it('createInventoryField answers 201; getInventory lists fields oldest first with their creator', async () => {
    await expect(client.createInventoryField('serial', { label: 'Serial number' })).resolves.toBeUndefined();
    clock.now += 1000;
    await client.createInventoryField('asset tag/2', { label: 'Asset tag' });
    clock.now += 1000;
    await client.createInventoryField('a-first', { label: '' });
    const fields = await client.getInventory();
    expect(fields).toEqual([
      { key: 'serial', label: 'Serial number', creation_time: '2026-01-15T12:00:00', defined_by_user: 1 },
      { key: 'asset tag/2', label: 'Asset tag', creation_time: '2026-01-15T12:00:01', defined_by_user: 1 },
      { key: 'a-first', label: '', creation_time: '2026-01-15T12:00:02', defined_by_user: 1 },
    ]);
    expectReferenceBody('getInventory', fields);
  });

  it('updateInventoryField changes the label only', async () => {
    await client.updateInventoryField('serial', { label: 'Serial no.' });
    const serial = (await client.getInventory()).find((f) => f.key === 'serial');
    expect(serial).toEqual({ key: 'serial', label: 'Serial no.', creation_time: '2026-01-15T12:00:00', defined_by_user: 1 });
  });

  it('409 for a key that exists; 404 to update or delete an unknown key', async () => {
    const dup = await failure(client.createInventoryField('serial', { label: 'again' }));
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ status: 409, code: 'CONFLICT', message: 'inventory field serial exists; change its label with updateInventoryField' });
    for (const e of [await failure(client.updateInventoryField('nope', { label: 'x' })), await failure(client.deleteInventoryField('nope'))]) {
      expect(e.status).toBe(404);
      expect(e.body).toEqual({ status: 404, code: 'NOT_FOUND', message: 'inventory field nope not found' });
    }
  });

  it('422 for a body without a label, with another field, or a label that is not a string', async () => {
    const missing = await failure(client.createInventoryField('x', {} as { label: string }));
    expect(missing.status).toBe(422);
    expect((missing.body as { detail: unknown }).detail).toEqual([{ loc: ['body', 'label'], msg: 'field required', type: 'required' }]);
    const extra = await failure(client.updateInventoryField('serial', { label: 'a', color: 'red' } as { label: string }));
    expect(extra.status).toBe(422);
    const typed = await failure(client.createInventoryField('x', { label: { text: 'a' } } as unknown as { label: string }));
    expect(typed.status).toBe(422);
    expect((typed.body as { detail: Array<{ loc: unknown }> }).detail[0]!.loc).toEqual(['body', 'label']);
    expect((await client.getInventory()).map((f) => f.key)).not.toContain('x');
  });

  it('422 for a key with a control character; 414 for one longer than 100 characters', async () => {
    const control = await failure(client.createInventoryField('bad\u0001key', { label: 'x' }));
    expect(control.status).toBe(422);
    expect((control.body as { detail: Array<{ loc: unknown }> }).detail[0]!.loc).toEqual(['path', 'inventory_field']);
    const long = await failure(client.createInventoryField('k'.repeat(101), { label: 'x' }));
    // Fastify refuses a path parameter over 100 characters before any route runs.
    expect(long.status).toBe(414);
    await client.createInventoryField('k'.repeat(100), { label: 'longest key' });
    await client.deleteInventoryField('k'.repeat(100));
  });

  it('a field another user defined cannot be changed or deleted (403)', async () => {
    await createInventoryField(store, 'theirs', 'defined by a team leader', 7);
    const e = await failure(client.updateInventoryField('theirs', { label: 'mine now' }));
    expect(e.status).toBe(403);
    expect(e.code).toBe('FIELD_OF_ANOTHER_USER');
    expect((await failure(client.deleteInventoryField('theirs'))).status).toBe(403);
    expect((await client.getInventory()).find((f) => f.key === 'theirs')).toMatchObject({ label: 'defined by a team leader', defined_by_user: 7 });
  });
});

describe("a device's inventory", () => {
  it('is empty until a value is set (unset fields are left out, never null)', async () => {
    const values = await client.getDeviceInventory(agent.id, printer.id);
    expect(values).toEqual([]);
    expectReferenceBody('getDeviceInventory', values);
  });

  it('setDeviceInventoryFieldValue sets a value (a JSON string); the list is by key, with when it was first set', async () => {
    clock.now += 60_000;
    await expect(client.setDeviceInventoryFieldValue(agent.id, printer.id, 'serial', 'SN-1234')).resolves.toBeUndefined();
    await client.setDeviceInventoryFieldValue(agent.id, printer.id, 'asset tag/2', 'A-77');
    clock.now += 60_000;
    await client.setDeviceInventoryFieldValue(agent.id, printer.id, 'serial', 'SN-9999');
    const values = await client.getDeviceInventory(agent.id, printer.id);
    expect(values).toEqual([
      { key: 'asset tag/2', value: 'A-77', creation_time: '2026-01-15T12:01:02' },
      { key: 'serial', value: 'SN-9999', creation_time: '2026-01-15T12:01:02' },
    ]);
    expectReferenceBody('getDeviceInventory', values);
    // Another device's inventory is its own.
    expect(await client.getDeviceInventory(agent.id, nas.id)).toEqual([]);
  });

  it('takes the value as text/plain too, and an empty string', async () => {
    expect((await put(`/agent/${agent.id}/device/${nas.id}/inventory/serial`, 'NAS 01', 'text/plain')).status).toBe(204);
    expect((await put(`/agent/${agent.id}/device/${nas.id}/inventory/a-first`, '""', 'application/json')).status).toBe(204);
    expect(await client.getDeviceInventory(agent.id, nas.id)).toEqual([
      { key: 'a-first', value: '', creation_time: '2026-01-15T12:02:02' },
      { key: 'serial', value: 'NAS 01', creation_time: '2026-01-15T12:02:02' },
    ]);
  });

  it('422 for a null value, an object, or a value longer than 4096 characters', async () => {
    const nul = await put(`/agent/${agent.id}/device/${printer.id}/inventory/serial`, 'null', 'application/json');
    expect(nul.status).toBe(422);
    expect(await nul.json()).toEqual({
      status: 422,
      code: 'VALIDATION_ERROR',
      message: "body: can't be null: send the value as a JSON string",
      detail: [{ loc: ['body'], msg: "can't be null: send the value as a JSON string", type: 'value_error' }],
    });
    expect((await put(`/agent/${agent.id}/device/${printer.id}/inventory/serial`, '{"value":"x"}', 'application/json')).status).toBe(422);
    expect((await failure(client.setDeviceInventoryFieldValue(agent.id, printer.id, 'serial', 'x'.repeat(4097)))).status).toBe(422);
    expect((await client.getDeviceInventory(agent.id, printer.id)).find((v) => v.key === 'serial')!.value).toBe('SN-9999');
  });

  it('404 for a field not defined, an unknown device, a device of another agent, an unknown agent; 403 for an agent without API access', async () => {
    const undefinedField = await failure(client.setDeviceInventoryFieldValue(agent.id, printer.id, 'colour', 'red'));
    expect(undefinedField.status).toBe(404);
    expect((undefinedField.body as { message: string }).message).toBe('inventory field colour not found');
    expect((await failure(client.getDeviceInventory(agent.id, 99999))).status).toBe(404);
    expect((await failure(client.getDeviceInventory(other.id, printer.id))).status).toBe(404);
    expect((await failure(client.setDeviceInventoryFieldValue(other.id, printer.id, 'serial', 'x'))).status).toBe(404);
    expect((await failure(client.deleteDeviceInventoryField(99999, printer.id, 'serial'))).status).toBe(404);
    expect((await failure(client.getDeviceInventory(locked.id, lockedDevice.id))).status).toBe(403);
  });

  it("deleteDeviceInventoryField removes the device's value (204 when it had none); 404 for a field not defined", async () => {
    await client.deleteDeviceInventoryField(agent.id, printer.id, 'asset tag/2');
    await client.deleteDeviceInventoryField(agent.id, printer.id, 'asset tag/2');
    expect((await client.getDeviceInventory(agent.id, printer.id)).map((v) => v.key)).toEqual(['serial']);
    expect((await failure(client.deleteDeviceInventoryField(agent.id, printer.id, 'colour'))).status).toBe(404);
  });

  it("deleting a field deletes every device's value of it; a deleted device's values go with it", async () => {
    await client.deleteInventoryField('serial');
    expect(await client.getDeviceInventory(agent.id, printer.id)).toEqual([]);
    expect((await client.getDeviceInventory(agent.id, nas.id)).map((v) => v.key)).toEqual(['a-first']);
    await deleteDevice(store, agent.id, nas.id);
    expect(await store.statement('SELECT count(*) AS n FROM device_inventory_values').get()).toEqual({ n: 0 });
  });

  it("deleteInventory clears this user's fields and their values, not another user's", async () => {
    await client.setDeviceInventoryFieldValue(agent.id, printer.id, 'a-first', 'one');
    await client.deleteInventory();
    expect((await client.getInventory()).map((f) => f.key)).toEqual(['theirs']);
    expect(await client.getDeviceInventory(agent.id, printer.id)).toEqual([]);
  });
});
