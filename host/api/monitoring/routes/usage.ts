// Usage figures: apiUsageInfo (tag meta), real counts of the calls this server answered in the
// last 24 hours, counted in memory by an onSend hook of the API's own and written to the store
// about once a second (store/account/api-usage.ts) and on close; and MetricUsageInfo (tag
// SNMP/TCP SENSORS), the agent's sensors and custom-driver associations against its limit.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { apiUsage, flushApiUsage, recordApiCall } from '../../../store/account/api-usage.js';
import { metricUsage } from '../../../store/monitoring/metric-usage.js';
import type { Store } from '../../../store/store.js';
import { requireAgent } from '../access.js';
import type { ApiContext } from '../context.js';
import { API_PREFIX } from '../openapi.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import { apiUsageSchema, metricUsageSchema, type APIUsageInformation, type DomotzMetricUsageInformation } from '../schemas/usage.js';

/** The limits apiUsageInfo shows. Informative: driverbox refuses no call for them. */
export interface ApiUsageLimits {
  /** Calls allowed in 24 hours. Default 50000. */
  dailyLimit?: number;
  /** Calls allowed in a minute (the reference's concurrent_allowed). Default 300. */
  perMinute?: number;
}

const route = (schema: ApiRouteSchema) => ({ schema });

export const DEFAULT_API_USAGE_LIMITS = { dailyLimit: 50_000, perMinute: 300 } as const;

/** The digest prefix a key's calls are counted under (the key itself is never stored). */
export const keyDigest = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** "/public-api/v1/agent/3/device?x=1" → "agent". */
function resourceOf(url: string): string {
  const path = url.split('?')[0]!.slice(API_PREFIX.length);
  return path.split('/')[1] || '/';
}

/**
 * Counts every call made with an accepted key (answered with any status; calls refused for a
 * missing or unknown key are not counted) and serves apiUsageInfo. Register inside the API prefix.
 */
export function registerApiUsage(app: FastifyInstance, options: { store: Store; apiKeys: readonly string[]; limits?: ApiUsageLimits }): void {
  const { store } = options;
  const digests = options.apiKeys.map(keyDigest);
  const limits = { ...DEFAULT_API_USAGE_LIMITS, ...options.limits };
  // Counted (in memory) as the answer goes out, so the next call (apiUsageInfo itself, which
  // writes the pending counts before it reads) already sees it.
  app.addHook('onSend', async (request, _reply, payload) => {
    const given = request.headers['x-api-key'];
    const key = Array.isArray(given) ? given[0] : given;
    if (!key) return payload;
    const digest = keyDigest(key);
    if (!digests.includes(digest)) return payload;
    recordApiCall(store, { keyDigest: digest, ip: request.ip, resource: resourceOf(request.url) });
    return payload;
  });
  // A clean stop loses no count: what is pending is written before the store can be closed.
  app.addHook('onClose', async (instance) => {
    try {
      await flushApiUsage(store);
    } catch (error) {
      // A store closed or read-only must not make the server's close fail.
      instance.log.warn({ err: error }, 'API usage not written');
    }
  });

  const schema: ApiRouteSchema = {
    operationId: 'apiUsageInfo',
    tags: ['meta'],
    summary: 'The calls this server answered in the last 24 hours, by key, caller IP and resource, and the (informative) limits',
    response: { 200: apiUsageSchema },
  };
  app.get('/meta/usage', { schema }, async (): Promise<APIUsageInformation> => {
    const usage = await apiUsage(store);
    return {
      by_ip: usage.byIp.map((u) => ({ name: u.ip, count: u.count })),
      // Keys no longer configured still count in daily_usage, but have no id to show.
      by_key: usage.byKey.flatMap((u) => {
        const id = digests.indexOf(u.keyDigest) + 1;
        return id > 0 ? [{ id, name: `key ${id}`, count: u.count }] : [];
      }),
      by_resource: usage.byResource.map((u) => ({ name: u.resource, count: u.count })),
      concurrent_allowed: limits.perMinute,
      daily_limit: limits.dailyLimit,
      daily_usage: usage.total,
    };
  });
}

export function registerMetricUsageRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;
  app.get<{ Params: { agent_id: number } }>(
    '/agent/:agent_id/metric-statistics',
    route({
      operationId: 'MetricUsageInfo',
      tags: ['SNMP/TCP SENSORS'],
      summary: "The agent's sensors (SNMP, TCP) and custom-driver associations, and its sensor limit",
      params: idParams('agent_id'),
      response: { 200: metricUsageSchema },
    }),
    async (request): Promise<DomotzMetricUsageInformation> => {
      const agent = await requireAgent(store, request.params.agent_id);
      const { limit, usage } = await metricUsage(store, agent.id);
      return { limit, usage: { custom_driver: usage.customDriver, snmp: usage.snmp, tcp: usage.tcp, total: usage.total } };
    },
  );
}
