// GET /metrics and GET /backend-api/v1/status as a Fastify plugin, for the app that serves the
// Monitoring API. Registered without fastify-plugin on purpose: its error handler (the
// marketplace validation body) and its API-key hooks stay inside this plugin's routes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorDetail } from '../monitoring/api-error.js';
import { apiKeyCheck } from '../monitoring/auth.js';
import type { AgentMetrics } from '../../agent/metrics.js';
import type { StatusQuery, StatusSource } from './status.js';

export const METRICS_PATH = '/metrics';
export const STATUS_PATH = '/backend-api/v1/status';

export interface AgentRoutesOptions {
  /** Served at /metrics; without it (`driverbox serve`, which schedules no runs) there is no /metrics. */
  metrics?: AgentMetrics;
  status: StatusSource;
  /** X-API-Key values accepted. Without keys no route asks for one. */
  apiKeys?: readonly string[];
  /**
   * Which routes need a key when apiKeys is given. Default: the status needs one (the spec puts
   * every operation behind X-API-Key), /metrics does not (Prometheus scrapers rarely send headers).
   */
  requireApiKey?: { metrics?: boolean; status?: boolean };
}

/** The spec's validation error body: only { detail }. */
class ValidationFailure extends Error {
  constructor(readonly detail: ErrorDetail[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
  }
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'f', 'n']);
const FLAGS = ['check_backend_services', 'check_modules', 'get_dependencies'] as const;

/** The three booleans, each false when absent; every bad one is reported, not just the first. */
export function parseStatusQuery(query: Record<string, unknown>): StatusQuery {
  const detail: ErrorDetail[] = [];
  const parsed: StatusQuery = { check_backend_services: false, check_modules: false, get_dependencies: false };
  for (const flag of FLAGS) {
    const raw = query[flag];
    if (raw === undefined) continue;
    if (typeof raw !== 'string') {
      detail.push({ loc: ['query', flag], msg: 'must be given once', type: 'bool_type' });
      continue;
    }
    const word = raw.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) parsed[flag] = true;
    else if (FALSE_WORDS.has(word)) parsed[flag] = false;
    else detail.push({ loc: ['query', flag], msg: `must be a boolean (true or false), got ${JSON.stringify(raw)}`, type: 'bool_parsing' });
  }
  if (detail.length > 0) throw new ValidationFailure(detail);
  return parsed;
}

function listeningPort(request: FastifyRequest): number {
  const local = request.socket?.localPort;
  if (typeof local === 'number') return local;
  // app.inject() has no socket port: fall back to where the server listens.
  const address = request.server.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

export async function agentRoutes(app: FastifyInstance, options: AgentRoutesOptions): Promise<void> {
  const keys = options.apiKeys ?? [];
  const checkKey = keys.length > 0 ? apiKeyCheck(keys) : null;
  const needsKey = {
    metrics: checkKey !== null && (options.requireApiKey?.metrics ?? false),
    status: checkKey !== null && (options.requireApiKey?.status ?? true),
  };

  app.setErrorHandler((error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ValidationFailure) return reply.code(422).type('application/json').send({ detail: error.detail });
    if (error instanceof ApiError) return reply.code(error.status).type('application/json').send(error.body);
    request.log.error({ err: error }, 'agent route failed');
    return reply
      .code(500)
      .type('application/json')
      .send(new ApiError(500, 'INTERNAL_ERROR', 'the server failed to answer this request; see its log').body);
  });

  const metrics = options.metrics;
  if (metrics) {
    app.get(METRICS_PATH, { onRequest: needsKey.metrics && checkKey ? checkKey : [] }, async (_request, reply) => {
      const text = await metrics.render();
      return reply.type(metrics.contentType).send(text);
    });
  }

  app.get(STATUS_PATH, { onRequest: needsKey.status && checkKey ? checkKey : [] }, async (request, reply) => {
    const query = parseStatusQuery((request.query ?? {}) as Record<string, unknown>);
    const body = await options.status.read(query, listeningPort(request));
    return reply.type('application/json').send(body);
  });
}
