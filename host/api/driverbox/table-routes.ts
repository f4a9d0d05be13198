// The driverbox extension API's device tables: the latest table each driver reported for a device
// (D.createTable), which the monitoring Public API v1 has no operation for. Tables keep no history:
// each association's table of a label is replaced by its next run.
//
//   GET /driverbox-api/v1/agent/{agent_id}/device/{device_id}/table
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/store.js';
import { listDeviceTables } from '../../store/results/tables.js';
import { formatApiTime } from '../../store/db/time.js';
import { requireDevice } from '../monitoring/access.js';
import { idParams } from '../monitoring/route-schema.js';
import type { DeviceTable } from './run-records.js';

/** Registers the route on an app already behind the key check (runs-routes.ts). */
export function registerDeviceTables(api: FastifyInstance, options: { store: Store }): void {
  api.get<{ Params: { agent_id: number; device_id: number } }>('/agent/:agent_id/device/:device_id/table', {
    schema: { params: idParams('agent_id', 'device_id') },
    handler: async (request): Promise<{ tables: DeviceTable[] }> => {
      const { agent_id: agentId, device_id: deviceId } = request.params;
      await requireDevice(options.store, agentId, deviceId);
      const tables = await listDeviceTables(options.store, deviceId);
      return {
        tables: tables.map((t) => ({
          id: t.id,
          association_id: t.associationId,
          label: t.label,
          columns: t.columns,
          rows: t.rows,
          ...(t.cellMetadata ? { cell_metadata: t.cellMetadata } : {}),
          updated: formatApiTime(t.updateTime),
        })),
      };
    },
  });
}
