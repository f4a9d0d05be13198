// Round-trip delay statistics and history of devices (measured by the TCP prober, or recorded
// with recordRtdSample) and speed-test history of agents (recorded with recordSpeedSample).
import type { FastifyInstance } from 'fastify';
import { agentRtdStatistics, deviceRtdHistory, speedHistory } from '../../../store/monitoring/rtd-speed.js';
import { formatApiTime } from '../../../store/db/time.js';
import type { ApiContext } from '../context.js';
import { timeWindow } from '../query.js';
import { requireAgent, requireDevice } from '../access.js';
import { withoutNulls } from '../present.js';
import { idParams, timeWindowQuery, type ApiRouteSchema } from '../route-schema.js';
import {
  rtdHistorySampleSchema,
  rtdStatisticsSchema,
  speedSampleSchema,
  type DeviceRTDHistorySample,
  type DeviceRTDStatistics,
  type NetworkSpeedSample,
} from '../schemas/rtd-speed.js';

const TAG = ['metrics'];
const route = (schema: ApiRouteSchema) => ({ schema });
const windowQuery = { type: 'object', properties: timeWindowQuery } as const;

/** ms → decimal string with at most 3 decimals ("12.345"); null stays null. */
export function formatMs(value: number | null): string | null {
  return value === null ? null : String(Math.round(value * 1000) / 1000);
}

export function registerRtdSpeedRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  app.get<{ Params: { agent_id: number } }>(
    '/agent/:agent_id/device/rtd',
    route({
      operationId: 'getAgentRTDStats',
      tags: TAG,
      summary: "RTD statistics of the agent's devices: the week's averages and the latest sample",
      params: idParams('agent_id'),
      response: { 200: { type: 'array', items: rtdStatisticsSchema } },
    }),
    async (request): Promise<DeviceRTDStatistics[]> => {
      await requireAgent(store, request.params.agent_id);
      return (await agentRtdStatistics(store, request.params.agent_id)).map((s) => withoutNulls({
        device_id: s.deviceId,
        timestamp: formatApiTime(s.timestamp),
        avg_min: formatMs(s.avgMinMs),
        avg_max: formatMs(s.avgMaxMs),
        avg_median: formatMs(s.avgMedianMs),
        latest_median: formatMs(s.latestMedianMs),
        latest_sent_packet_count: s.latestSentPacketCount,
        latest_lost_packet_count: s.latestLostPacketCount,
      }));
    },
  );

  app.get<{ Params: { agent_id: number; device_id: number }; Querystring: { from?: string; to?: string } }>(
    '/agent/:agent_id/device/:device_id/history/rtd',
    route({
      operationId: 'getDeviceRTDHistory',
      tags: TAG,
      summary: 'The RTD samples of the device between from and to',
      params: idParams('agent_id', 'device_id'),
      querystring: windowQuery,
      response: { 200: { type: 'array', items: rtdHistorySampleSchema } },
    }),
    async (request): Promise<DeviceRTDHistorySample[]> => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      const { from, to } = timeWindow(request.query, store.now());
      return (await deviceRtdHistory(store, device.id, from, to)).map((s) => withoutNulls({
        timestamp: formatApiTime(s.timestamp),
        min: formatMs(s.minMs),
        max: formatMs(s.maxMs),
        median: formatMs(s.medianMs),
        sent_packet_count: s.sentPacketCount,
        lost_packet_count: s.lostPacketCount,
      }));
    },
  );

  app.get<{ Params: { agent_id: number }; Querystring: { from?: string; to?: string } }>(
    '/agent/:agent_id/history/network/speed',
    route({
      operationId: 'getSpeedTestHistory',
      tags: TAG,
      summary: "The agent's Internet speed samples between from and to: [download, upload] in bits per second",
      params: idParams('agent_id'),
      querystring: windowQuery,
      response: { 200: { type: 'array', items: speedSampleSchema } },
    }),
    async (request): Promise<NetworkSpeedSample[]> => {
      await requireAgent(store, request.params.agent_id);
      const { from, to } = timeWindow(request.query, store.now());
      return (await speedHistory(store, request.params.agent_id, from, to)).map((s) => ({ timestamp: formatApiTime(s.timestamp), values: [s.downloadBps, s.uploadBps] }));
    },
  );
}
