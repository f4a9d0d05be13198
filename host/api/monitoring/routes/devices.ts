// Devices of an agent (tag "device"): list, detail, delete (one, or every DOWN IP device),
// edit one field, hide, create an external host, credentials and SNMP authentication.
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { setDeviceCredentials } from '../../../store/fleet/credentials.js';
import {
  createExternalHost,
  deleteDevice,
  deleteDownDevices,
  editDeviceField,
  getSnmpAuthentication,
  hideDevice,
  listDevices,
  setAuthenticationStatus,
  setSnmpAuthentication,
  type DeviceRow,
} from '../../../store/fleet/devices.js';
import { formatApiTime, formatApiTimeOrNull } from '../../../store/db/time.js';
import { requireAgent, requireDevice } from '../access.js';
import { ApiError, invalid, type ErrorDetail } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { API_PREFIX } from '../openapi.js';
import { withoutNulls } from '../present.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import {
  deviceCredentialsSchema,
  deviceSchema,
  EDITABLE_FIELDS,
  externalHostSchema,
  snmpAuthenticationSchema,
  snmpCommunitySchema,
  type Device,
  type DeviceCredentialsRequest,
  type EditableField,
  type ExternalHost,
  type SnmpAuthentication,
  type SnmpCommunity,
} from '../schemas/devices.js';

const TAGS = ['device'];
type DevicePath = { agent_id: number; device_id: number };
const devicePath = idParams('agent_id', 'device_id');
const noContent = { 204: { type: 'null' } } as const;

/** What getSNMPAuthentication answers for a device whose SNMP settings were never set. */
export const DEFAULT_SNMP_AUTHENTICATION: SnmpAuthentication = { version: 'V2', snmp_read_community: 'public', snmp_write_community: 'private' };

/** The API record of a device: the common fields, plus the IpDevice fields for IP protocols. */
export function deviceRecord(row: DeviceRow): Device {
  return withoutNulls(deviceFields(row));
}

function deviceFields(row: DeviceRow): Device {
  const record: Device = {
    id: row.id,
    main_id: row.mainId ?? row.id,
    display_name: row.displayName,
    protocol: row.protocol,
    first_seen_on: formatApiTime(row.firstSeenOn),
    authentication_status: row.authenticationStatus,
    importance: row.importance,
    details: row.details,
    os: row.os,
    type: row.type as Device['type'],
    user_data: row.userData as Device['user_data'],
    is_excluded: row.excluded,
  };
  if (row.protocol === 'DUMMY') return record;
  Object.assign(record, {
    status: row.hidden ? 'HIDDEN' : row.status,
    // The agent probes its devices itself: what it knows of them it learnt over IP.
    agent_reachable: true,
    ip_addresses: row.ipAddresses,
    last_status_change: formatApiTimeOrNull(row.lastStatusChange) ?? undefined,
    model: row.model ?? undefined,
    vendor: row.vendor ?? undefined,
    open_ports: row.openPorts,
  });
  if (row.protocol === 'IP_EXTERNAL') {
    record.names = { host: row.hostName ?? undefined };
  } else {
    record.hw_address = row.macAddress ?? undefined;
    record.is_jammed = false;
    if (row.hostName) record.names = { host: row.hostName };
  }
  return record;
}

const HOST_NAME = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const MAX_TEXT = 255;

/** The value editDevice stores for a field, or a 422 naming the field and what it accepts. */
export function editValue(field: EditableField, body: unknown): string | number | null {
  const where = ['body'];
  if (body === undefined) throw invalid(where, `a JSON value for ${field} is required`, 'missing');
  if (body === null) {
    if (field === 'importance' || field === 'user_data/name') throw invalid(where, `${field} cannot be null`, 'type_error.none.not_allowed');
    return null;
  }
  if (typeof body !== 'string') throw invalid(where, `${field} takes a JSON string`, 'type_error.str');
  if (field === 'importance') {
    if (body !== 'VITAL' && body !== 'FLOATING') throw invalid(where, `importance must be VITAL or FLOATING, not "${body}"`, 'value_error.enum');
    return body;
  }
  if (field === 'user_data/type') {
    const n = /^-?\d{1,10}$/.test(body.trim()) ? Number(body.trim()) : NaN;
    if (!Number.isInteger(n) || n < -2147483648 || n > 2147483647) throw invalid(where, `user_data/type must be an integer (a device type id), not "${body}"`, 'value_error.integer');
    return n;
  }
  if (field === 'user_data/name' && body.trim() === '') throw invalid(where, 'user_data/name cannot be empty', 'value_error.empty');
  if (body.length > MAX_TEXT) throw invalid(where, `${field} is longer than ${MAX_TEXT} characters`, 'value_error.too_long');
  return body;
}

/** The fields each SNMP version needs (the reference's rules for setSNMPAuthentication). */
const SNMP_REQUIRED: Record<SnmpAuthentication['version'], Array<keyof SnmpAuthentication>> = {
  V1: [],
  V2: [],
  V3_NO_AUTH: ['username'],
  V3_AUTH_NO_PRIV: ['username', 'authentication_protocol', 'authentication_key'],
  V3_AUTH_PRIV: ['username', 'authentication_protocol', 'authentication_key', 'encryption_protocol', 'encryption_key'],
};

/** The settings kept for a version: the ones it uses (communities for V1/V2, the rest for V3). */
export function snmpSettings(body: SnmpAuthentication): SnmpAuthentication {
  const missing = SNMP_REQUIRED[body.version].filter((name) => !body[name]);
  if (missing.length > 0) {
    const detail: ErrorDetail[] = missing.map((name) => ({ loc: ['body', name], msg: `field required for SNMP version ${body.version}`, type: 'missing' }));
    throw new ApiError(422, 'VALIDATION_ERROR', `SNMP version ${body.version} needs ${missing.join(', ')}`, detail);
  }
  const kept: Array<keyof SnmpAuthentication> = body.version === 'V1' || body.version === 'V2' ? ['snmp_read_community', 'snmp_write_community'] : SNMP_REQUIRED[body.version];
  const settings: SnmpAuthentication = { version: body.version };
  for (const name of kept) if (body[name] !== undefined) (settings as unknown as Record<string, unknown>)[name] = body[name];
  return settings;
}

export function registerDeviceRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  const list: ApiRouteSchema = {
    operationId: 'listDevices',
    tags: TAGS,
    summary: 'Returns all the devices of an agent',
    params: idParams('agent_id'),
    description: 'Only MANAGED devices: the UNMANAGED ones are listed by listUnmanagedDevices.',
    querystring: {
      type: 'object',
      properties: {
        show_hidden: { type: 'boolean', default: false, description: 'Include hidden devices' },
        show_excluded: { type: 'boolean', default: true, description: 'Include excluded devices (is_excluded true)' },
      },
    },
    response: { 200: { type: 'array', items: deviceSchema } },
  };
  app.get<{ Params: { agent_id: number }; Querystring: { show_hidden?: boolean; show_excluded?: boolean } }>('/agent/:agent_id/device', { schema: list }, async (request) => {
    await requireAgent(store, request.params.agent_id);
    const { show_hidden, show_excluded } = request.query;
    return (await listDevices(store, request.params.agent_id, { showHidden: show_hidden, showExcluded: show_excluded, managedOnly: true })).map(deviceRecord);
  });

  const removeDown: ApiRouteSchema = {
    operationId: 'deleteDownDevices',
    tags: TAGS,
    summary: 'Deletes all the DOWN devices of IP protocol',
    params: idParams('agent_id'),
    response: noContent,
  };
  app.delete<{ Params: { agent_id: number } }>('/agent/:agent_id/device', { schema: removeDown }, async (request, reply) => {
    await requireAgent(store, request.params.agent_id);
    await deleteDownDevices(store, request.params.agent_id);
    return reply.code(204).send();
  });

  const external: ApiRouteSchema = {
    operationId: 'createExternalHost',
    tags: TAGS,
    summary: 'Creates an external host (an IP_EXTERNAL device); the Location header names it',
    params: idParams('agent_id'),
    body: externalHostSchema,
    response: { 201: { type: 'null' } },
  };
  app.post<{ Params: { agent_id: number }; Body: ExternalHost }>('/agent/:agent_id/device/external-host', { schema: external }, async (request, reply) => {
    const { agent_id } = request.params;
    await requireAgent(store, agent_id);
    const host = request.body.host.trim();
    if (!isIP(host) && !HOST_NAME.test(host)) throw invalid(['body', 'host'], `"${request.body.host}" is neither an IP address nor a host name`);
    const device = await createExternalHost(store, agent_id, { host, name: request.body.name });
    return reply.code(201).header('Location', `${API_PREFIX}/agent/${agent_id}/device/${device.id}`).send();
  });

  const get: ApiRouteSchema = {
    operationId: 'getDevice',
    tags: TAGS,
    summary: 'Returns the details of a device',
    params: devicePath,
    response: { 200: deviceSchema },
  };
  app.get<{ Params: DevicePath }>('/agent/:agent_id/device/:device_id', { schema: get }, async (request) =>
    deviceRecord(await requireDevice(store, request.params.agent_id, request.params.device_id)),
  );

  const remove: ApiRouteSchema = {
    operationId: 'deleteDevice',
    tags: TAGS,
    summary: 'Deletes a device, whether ONLINE, OFFLINE or DOWN',
    params: devicePath,
    response: noContent,
  };
  app.delete<{ Params: DevicePath }>('/agent/:agent_id/device/:device_id', { schema: remove }, async (request, reply) => {
    await requireDevice(store, request.params.agent_id, request.params.device_id);
    await deleteDevice(store, request.params.agent_id, request.params.device_id);
    return reply.code(204).send();
  });

  const hide: ApiRouteSchema = {
    operationId: 'hideDevice',
    tags: TAGS,
    summary: 'Hides a device (DOWN devices only; others answer 409)',
    params: devicePath,
    response: noContent,
  };
  app.delete<{ Params: DevicePath }>('/agent/:agent_id/device/:device_id/visibility', { schema: hide }, async (request, reply) => {
    await requireDevice(store, request.params.agent_id, request.params.device_id);
    await hideDevice(store, request.params.agent_id, request.params.device_id);
    return reply.code(204).send();
  });

  const credentials: ApiRouteSchema = {
    operationId: 'setCredentials',
    tags: TAGS,
    summary: 'Sets the device credentials (sealed at rest); authentication_status becomes PENDING',
    params: devicePath,
    body: deviceCredentialsSchema,
    response: noContent,
  };
  app.put<{ Params: DevicePath; Body: DeviceCredentialsRequest }>(
    '/agent/:agent_id/device/:device_id/credentials',
    { schema: credentials },
    async (request, reply) => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      const { username, password, scope = 'DEVICE_MANAGEMENT' } = request.body;
      await store.transaction(async () => {
        await setDeviceCredentials(store, device.id, scope, { username, password });
        // Submitted, not verified: a driver run or discovery with them decides the outcome.
        await setAuthenticationStatus(store, device.id, 'PENDING');
      });
      return reply.code(204).send();
    },
  );

  const getSnmp: ApiRouteSchema = {
    operationId: 'getSNMPAuthentication',
    tags: TAGS,
    summary: 'Retrieves the SNMP authentication info (V2 public/private when never set)',
    params: devicePath,
    response: { 200: snmpAuthenticationSchema },
  };
  app.get<{ Params: DevicePath }>('/agent/:agent_id/device/:device_id/snmp-authentication', { schema: getSnmp }, async (request) => {
    const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
    return await getSnmpAuthentication<SnmpAuthentication>(store, device.id) ?? DEFAULT_SNMP_AUTHENTICATION;
  });

  const setSnmp: ApiRouteSchema = {
    operationId: 'setSNMPAuthentication',
    tags: TAGS,
    summary: 'Sets the SNMP authentication info (sealed at rest)',
    description:
      'snmp_read_community and snmp_write_community apply to V1 and V2 only. V3_NO_AUTH needs username; V3_AUTH_NO_PRIV needs username, ' +
      'authentication_protocol and authentication_key; V3_AUTH_PRIV needs those and encryption_protocol and encryption_key.',
    params: devicePath,
    body: snmpAuthenticationSchema,
    response: noContent,
  };
  app.put<{ Params: DevicePath; Body: SnmpAuthentication }>(
    '/agent/:agent_id/device/:device_id/snmp-authentication',
    { schema: setSnmp },
    async (request, reply) => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      await setSnmpAuthentication(store, device.id, snmpSettings(request.body));
      return reply.code(204).send();
    },
  );

  const community: ApiRouteSchema = {
    operationId: 'setSnmpCommunity',
    tags: TAGS,
    summary: 'Saves an SNMP community (read, optionally write); deprecated, use setSNMPAuthentication',
    deprecated: true,
    params: devicePath,
    body: snmpCommunitySchema,
    response: noContent,
  };
  app.put<{ Params: DevicePath; Body: SnmpCommunity }>('/agent/:agent_id/device/:device_id/snmp-community', { schema: community }, async (request, reply) => {
    const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
    const current = await getSnmpAuthentication<SnmpAuthentication>(store, device.id);
    // Communities belong to V1 / V2c: a V1 device stays V1, anything else becomes V2.
    const version = current?.version === 'V1' ? 'V1' : 'V2';
    const { read, write = read } = request.body;
    await setSnmpAuthentication(store, device.id, { version, snmp_read_community: read, snmp_write_community: write });
    return reply.code(204).send();
  });

  const edit: ApiRouteSchema = {
    operationId: 'editDevice',
    tags: TAGS,
    summary: 'Changes a field of the device or one of its details',
    description:
      'The body is one JSON value: a string ("VITAL" or "FLOATING" for importance, an integer in a string for user_data/type), ' +
      'or null to remove a user_data or details entry. The field may be sent URL-encoded (user_data%2Fmodel) or as two path segments.',
    params: {
      type: 'object',
      required: ['agent_id', 'device_id', 'field'],
      properties: { ...devicePath.properties, field: { type: 'string', enum: [...EDITABLE_FIELDS] } },
    },
    body: { type: ['string', 'null'], description: 'The value that the field will change to' },
    response: noContent,
  };
  const editHandler = async (agentId: number, deviceId: number, field: EditableField, body: unknown): Promise<void> => {
    const device = await requireDevice(store, agentId, deviceId);
    await editDeviceField(store, device.id, field, editValue(field, body));
  };
  app.put<{ Params: DevicePath & { field: EditableField } }>('/agent/:agent_id/device/:device_id/:field', { schema: edit }, async (request, reply) => {
    await editHandler(request.params.agent_id, request.params.device_id, request.params.field, request.body);
    return reply.code(204).send();
  });
  // The same operation when a client sends the field's slash unencoded (PUT …/user_data/model):
  // no operationId, so the OpenAPI document lists the operation once.
  for (const group of ['user_data', 'details'] as const) {
    const keys = EDITABLE_FIELDS.filter((f) => f.startsWith(`${group}/`)).map((f) => f.slice(group.length + 1));
    const schema = {
      params: { type: 'object', required: ['agent_id', 'device_id', 'key'], properties: { ...devicePath.properties, key: { type: 'string', enum: keys } } },
      body: edit.body,
    };
    app.put<{ Params: DevicePath & { key: string } }>(`/agent/:agent_id/device/:device_id/${group}/:key`, { schema }, async (request, reply) => {
      await editHandler(request.params.agent_id, request.params.device_id, `${group}/${request.params.key}` as EditableField, request.body);
      return reply.code(204).send();
    });
  }
}
