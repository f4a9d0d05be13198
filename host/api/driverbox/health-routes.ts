// The driverbox extension API's association health (the Public API has only an association's
// status and last_inspection_time): every association × action of an agent or of one device, its
// last outcome and error, the failure streak, last success, success ratios over 1 h and 24 h and
// lateness, failing first, filterable; with counts by state for an overview.
//
//   GET /driverbox-api/v1/agent/{agent_id}/health
//   GET /driverbox-api/v1/agent/{agent_id}/device/{device_id}/health
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/store.js';
import { HEALTH_STATES, listAssociationHealth, type AssociationHealth, type HealthState } from '../../store/runs/association-health-list.js';
import { formatApiTime, formatApiTimeOrNull } from '../../store/db/time.js';
import { requireAgent, requireDevice } from '../monitoring/access.js';
import { page } from '../monitoring/query.js';
import { idParams, pagingQuery } from '../monitoring/route-schema.js';
import type { HealthAnswer, HealthCounts, HealthEntry } from './run-records.js';

interface HealthQuery {
  state?: HealthState;
  error_type?: string;
  device_id?: number;
  custom_driver_id?: number;
  page_size?: number;
  page_number?: number;
}

const filters = {
  state: { type: 'string', enum: [...HEALTH_STATES] },
  error_type: { type: 'string', minLength: 1, maxLength: 100, description: 'the failing entries of this error type (e.g. AUTHENTICATION_ERROR)' },
  custom_driver_id: { type: 'integer', minimum: 0, maximum: 2147483647 },
  ...pagingQuery(1000, 100),
} as const;

function entry(h: AssociationHealth): HealthEntry {
  return {
    association_id: h.associationId,
    custom_driver_id: h.customDriverId,
    driver: h.driverName,
    device_id: h.deviceId,
    device: h.deviceName,
    sample_period: h.samplePeriod,
    status: h.status,
    action: h.action,
    state: h.state,
    stale: h.stale,
    last_outcome: h.lastOutcome,
    last_run_time: formatApiTimeOrNull(h.lastRunTime),
    last_run_id: h.lastRunId,
    error_type: h.errorType,
    error_message: h.errorMessage,
    failing_since: formatApiTimeOrNull(h.failingSince),
    consecutive_failures: h.consecutiveFailures,
    last_success_time: formatApiTimeOrNull(h.lastSuccessTime),
    last_failure_time: formatApiTimeOrNull(h.lastFailureTime),
    lateness_ms: h.latenessMs,
    elapsed_ms: h.elapsedMs,
    runs_1h: h.runs1h,
    success_ratio_1h: h.successRatio1h,
    runs_24h: h.runs24h,
    success_ratio_24h: h.successRatio24h,
  };
}

const zero = (): HealthCounts => ({ failing: 0, stale: 0, ok: 0, pending: 0 });

function summary(all: readonly AssociationHealth[]): HealthAnswer['summary'] {
  const entries = zero();
  const worst = new Map<number, HealthState>();
  const byType = new Map<string | null, number>();
  for (const h of all) {
    entries[h.state] += 1;
    const seen = worst.get(h.deviceId);
    if (seen === undefined || HEALTH_STATES.indexOf(h.state) < HEALTH_STATES.indexOf(seen)) worst.set(h.deviceId, h.state);
    if (h.state === 'failing') byType.set(h.errorType, (byType.get(h.errorType) ?? 0) + 1);
  }
  const devices = zero();
  for (const state of worst.values()) devices[state] += 1;
  const failing_by_error_type = [...byType].map(([error_type, count]) => ({ error_type, count })).sort((a, b) => b.count - a.count || String(a.error_type).localeCompare(String(b.error_type)));
  return { entries, devices, failing_by_error_type };
}

async function answer(store: Store, agentId: number, deviceId: number | undefined, q: HealthQuery): Promise<HealthAnswer> {
  const { limit, offset } = page(q, 100, 1000);
  const now = store.now();
  // One read (the states and ratios at one `now`); the filters and the page are applied to it.
  const all = await listAssociationHealth(store, { agentId, deviceId, now });
  const matching = all.filter(
    (h) =>
      (q.state === undefined || h.state === q.state) &&
      (q.error_type === undefined || h.errorType === q.error_type) &&
      (q.custom_driver_id === undefined || h.customDriverId === q.custom_driver_id),
  );
  return { now: formatApiTime(now), total: matching.length, summary: summary(all), entries: matching.slice(offset, offset + limit).map(entry) };
}

/** Registers the routes on an app already behind the key check (runs-routes.ts). */
export function registerHealth(api: FastifyInstance, options: { store: Store }): void {
  const { store } = options;
  api.get<{ Params: { agent_id: number }; Querystring: HealthQuery }>('/agent/:agent_id/health', {
    schema: {
      params: idParams('agent_id'),
      querystring: { type: 'object', properties: { ...filters, device_id: { type: 'integer', minimum: 0, maximum: 2147483647 } } },
    },
    handler: async (request): Promise<HealthAnswer> => {
      await requireAgent(store, request.params.agent_id);
      return answer(store, request.params.agent_id, request.query.device_id, request.query);
    },
  });

  api.get<{ Params: { agent_id: number; device_id: number }; Querystring: HealthQuery }>('/agent/:agent_id/device/:device_id/health', {
    schema: { params: idParams('agent_id', 'device_id'), querystring: { type: 'object', properties: filters } },
    handler: async (request): Promise<HealthAnswer> => {
      const { agent_id: agentId, device_id: deviceId } = request.params;
      await requireDevice(store, agentId, deviceId);
      return answer(store, agentId, deviceId, request.query);
    },
  });
}
