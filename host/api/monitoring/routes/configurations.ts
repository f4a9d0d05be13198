// Configuration Management (reference 1.14.0): backing a device's configuration up through its
// custom driver's backup(), the device's configuration history, one configuration's text, and a
// configuration created through the API.
import type { FastifyInstance } from 'fastify';
import { backupBounds } from '../../../../runtime/constants.js';
import { listEntryPoints } from '../../../driver/entry-points.js';
import { listAssociations } from '../../../store/drivers/associations.js';
import { getConfiguration, listConfigurations, saveConfiguration, type ConfigurationMetadata } from '../../../store/results/configurations.js';
import { getCustomDriver, type CustomDriverRow } from '../../../store/drivers/custom-drivers.js';
import type { DeviceRow } from '../../../store/fleet/devices.js';
import type { PlannedRun } from '../../../store/runs/run-request.js';
import { deviceSecrets, maskFor } from '../../../store/runs/run-secrets.js';
import type { Store } from '../../../store/store.js';
import { requireDevice } from '../access.js';
import { ApiError, invalid } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { runAndRecord } from '../execute-action.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import {
  deviceConfigurationCreateSchema,
  deviceConfigurationMetadataSchema,
  deviceConfigurationSchema,
  type DeviceConfiguration,
  type DeviceConfigurationCreate,
  type DeviceConfigurationMetadata,
} from '../schemas/configurations.js';

const TAGS = ['Configuration Management'];
type DeviceParams = { agent_id: number; device_id: number };
const BASE = '/agent/:agent_id/device/:device_id/configuration-management';

/** Base64 of two 1 MiB configurations, with room for JSON. */
const CREATE_BODY_LIMIT = 3 * 1024 * 1024;

/** 1700000000000 → "2023-11-14T22:13:20+00:00". */
export function formatConfigurationTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * "latest", or a time with second resolution: yyyy-mm-ddThh:mm:ss followed by +00:00 (the
 * reference's form), +0000, Z, another offset or none (UTC). A "+" sent unencoded in a query
 * form would arrive as a space: it is taken as "+".
 */
export function parseConfigurationTime(text: string): number | 'latest' | null {
  if (text === 'latest') return 'latest';
  const m = TIMESTAMP.exec(text.replace(' ', '+'));
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  let ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || back.getUTCHours() !== hour || back.getUTCMinutes() !== minute || back.getUTCSeconds() !== second) {
    return null;
  }
  const zone = m[7];
  if (zone && zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const offset = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    if (Number(digits.slice(2)) > 59) return null;
    ms -= zone[0] === '+' ? offset : -offset;
  }
  return ms;
}

function metadataOf(c: ConfigurationMetadata): DeviceConfigurationMetadata {
  return { label: c.label, running_md5: c.runningMd5, ...(c.startupMd5 !== null ? { startup_md5: c.startupMd5 } : {}), timestamp: formatConfigurationTime(c.timestamp) };
}

/** Strict base64 (padding optional, no whitespace inside) decoded as UTF-8, or null. */
function decodeBase64(text: string): string | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return null;
  return Buffer.from(text, 'base64').toString('utf8');
}

const definesBackup = (driver: CustomDriverRow) => listEntryPoints(driver.source).some((e) => e.name === 'backup');

/**
 * The association whose backup() backs the device up: among the drivers applied to it that
 * define backup() and have valid code, a CONFIGURATION_MANAGEMENT one first, then the oldest
 * association. Throws the ApiError that says why there is none.
 */
export async function planBackup(store: Store, device: DeviceRow): Promise<PlannedRun> {
  const candidates: PlannedRun[] = [];
  for (const association of await listAssociations(store, device.agentId)) {
    if (association.deviceId !== device.id) continue;
    const driver = await getCustomDriver(store, association.customDriverId);
    if (driver && driver.isValid && definesBackup(driver)) candidates.push({ driver, association, device, action: 'backup' });
  }
  if (candidates.length === 0) {
    throw new ApiError(
      404,
      'NO_BACKUP_DRIVER',
      `no custom driver applied to device ${device.id} defines backup(): apply a configuration-management driver (one with a backup() function) first`,
    );
  }
  const managed = candidates.filter((c) => c.driver.type === 'CONFIGURATION_MANAGEMENT');
  return (managed.length ? managed : candidates)[0]!;
}

export function registerConfigurationRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  const backup: ApiRouteSchema = {
    operationId: 'backupDeviceConfiguration',
    tags: TAGS,
    summary: 'Sends a command to backup a device configuration',
    description:
      "Runs backup() of the custom driver applied to the device (a CONFIGURATION_MANAGEMENT driver first) and answers 202 once the run " +
      "is recorded: a configuration it reported is in the history; a failed run is in the device's runs and the activity log. " +
      '404 NO_BACKUP_DRIVER when no driver applied to the device defines backup(), 503 when the server runs no drivers.',
    params: idParams('agent_id', 'device_id'),
    response: { 202: { type: 'null', description: 'Command has been sent' } },
  };
  app.post<{ Params: DeviceParams }>(`${BASE}/backup`, { schema: backup }, async (request, reply) => {
    const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
    const plan = await planBackup(store, device);
    if (!ctx.host) {
      throw new ApiError(503, 'EXECUTION_UNAVAILABLE', 'this server was started without a driver host, so it cannot run a backup');
    }
    await runAndRecord(store, ctx, plan, request.log);
    return reply.code(202).send();
  });

  const history: ApiRouteSchema = {
    operationId: 'deviceConfigurationHistoryList',
    tags: TAGS,
    summary: 'Retrieves the list of available device configuration details',
    description: 'Newest first. A backup identical to the latest configuration adds no entry: the list holds the configurations the device has had.',
    params: idParams('agent_id', 'device_id'),
    response: { 200: { type: 'array', items: deviceConfigurationMetadataSchema } },
  };
  app.get<{ Params: DeviceParams }>(`${BASE}/history`, { schema: history }, async (request): Promise<DeviceConfigurationMetadata[]> => {
    const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
    return (await listConfigurations(store, device.id)).map(metadataOf);
  });

  const create: ApiRouteSchema = {
    operationId: 'createDeviceConfiguration',
    tags: TAGS,
    summary: 'Creates a device configuration backup in the configuration history',
    description: `running and startup are base64 of UTF-8 text, each at most ${backupBounds.configurationChars} characters once decoded; the device's credentials are masked as in a run's backup.`,
    params: idParams('agent_id', 'device_id'),
    body: deviceConfigurationCreateSchema,
    response: { 202: { type: 'null', description: 'Configuration backup has been created' } },
  };
  app.post<{ Params: DeviceParams; Body: DeviceConfigurationCreate }>(`${BASE}/history`, { schema: create, bodyLimit: CREATE_BODY_LIMIT }, async (request, reply) => {
    const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
    const { label } = request.body;
    const decoded = (field: 'running' | 'startup'): string | null => {
      const value = request.body[field];
      if (value === undefined) return null;
      const text = decodeBase64(value);
      if (text === null) throw invalid(['body', field], 'must be base64 (A-Z, a-z, 0-9, +, / and = padding)');
      if (text.length > backupBounds.configurationChars) {
        throw invalid(['body', field], `holds ${text.length} characters once decoded; at most ${backupBounds.configurationChars} are allowed`);
      }
      return text;
    };
    const running = decoded('running')!;
    const startup = decoded('startup');
    const mask = maskFor(await deviceSecrets(store, device.id));
    await saveConfiguration(store, device.id, { label: mask.text(label), running: mask.text(running), startup: mask.nullable(startup) }, store.now(), { source: 'api' });
    return reply.code(202).send();
  });

  const one: ApiRouteSchema = {
    operationId: 'getDeviceConfiguration',
    tags: TAGS,
    summary: 'Retrieves a device configuration entry',
    description: '404 when the device has no configuration at that time (or none at all, for "latest").',
    params: {
      type: 'object',
      required: ['agent_id', 'device_id', 'configuration_timestamp'],
      properties: {
        ...idParams('agent_id', 'device_id').properties,
        configuration_timestamp: { type: 'string', description: 'Configuration timestamp ("latest" or YYYY-MM-DDTHH:MM:SS+00:00)' },
      },
    },
    response: { 200: deviceConfigurationSchema },
  };
  app.get<{ Params: DeviceParams & { configuration_timestamp: string } }>(
    `${BASE}/history/:configuration_timestamp`,
    { schema: one },
    async (request): Promise<DeviceConfiguration> => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      const at = parseConfigurationTime(request.params.configuration_timestamp);
      if (at === null) throw invalid(['path', 'configuration_timestamp'], 'must be "latest" or YYYY-MM-DDTHH:MM:SS+00:00');
      const found = await getConfiguration(store, device.id, at === 'latest' ? at : Math.floor(at / 1000) * 1000);
      if (!found) {
        throw new ApiError(
          404,
          'NOT_FOUND',
          at === 'latest'
            ? `device ${device.id} has no configuration backup yet`
            : `device ${device.id} has no configuration backup at ${formatConfigurationTime(at)}`,
        );
      }
      const answer: DeviceConfiguration = { ...metadataOf(found), running: found.running };
      if (found.startup !== null && found.startup !== found.running) answer.startup = found.startup;
      return answer;
    },
  );
}
