// What real clients of the Public API send, and the cloud accepts, normalized before the schema
// validates it, for every route from its own schema (so a route group added later gets it too):
// - a boolean query / path parameter as Python's requests writes it (True, False) or as 1 / 0 /
//   yes / no, any case: ajv coerces only "true" / "false";
// - a page_size past the operation's maximum: clamped to it (clients page with 500 against a
//   maximum of 100). The schema keeps its `maximum`, so the OpenAPI document still states it.
// Anything else goes on to the schema unchanged (a negative or non-numeric page_size is its 422).
import type { FastifyRequest, RouteOptions } from 'fastify';
import { invalid } from './api-error.js';

const TRUE_FORMS = new Set(['true', '1', 'yes']);
const FALSE_FORMS = new Set(['false', '0', 'no']);
export const BOOLEAN_FORMS = 'true, false, 1, 0, yes, no (any case: True, FALSE…)';

interface ParamSchema {
  type?: unknown;
  maximum?: unknown;
}

interface Leniency {
  booleans: { query: string[]; path: string[] };
  /** page_size → its maximum. */
  clamps: Map<string, number>;
}

function propertiesOf(schema: unknown): Record<string, ParamSchema> {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return properties && typeof properties === 'object' ? (properties as Record<string, ParamSchema>) : {};
}

const isBoolean = (prop: ParamSchema) => prop.type === 'boolean' || (Array.isArray(prop.type) && prop.type.includes('boolean'));

function leniencyOf(schema: { querystring?: unknown; params?: unknown } | undefined): Leniency | null {
  const query = propertiesOf(schema?.querystring);
  const path = propertiesOf(schema?.params);
  const clamps = new Map<string, number>();
  const pageSize = query.page_size;
  if (pageSize && typeof pageSize.maximum === 'number') clamps.set('page_size', pageSize.maximum);
  const booleans = {
    query: Object.keys(query).filter((name) => isBoolean(query[name]!)),
    path: Object.keys(path).filter((name) => isBoolean(path[name]!)),
  };
  return booleans.query.length || booleans.path.length || clamps.size ? { booleans, clamps } : null;
}

/** "True" → "true", "no" → "false"; a form not accepted is a 422 naming the parameter and the forms. */
function normalizeBoolean(value: unknown, loc: [string, string]): unknown {
  if (Array.isArray(value)) return value.map((item) => normalizeBoolean(item, loc));
  if (typeof value !== 'string') return value;
  const form = value.trim().toLowerCase();
  if (TRUE_FORMS.has(form)) return 'true';
  if (FALSE_FORMS.has(form)) return 'false';
  throw invalid(loc, `must be a boolean: one of ${BOOLEAN_FORMS} (got "${value}")`, 'type_error.bool');
}

/** A whole number in decimal above the maximum becomes the maximum; anything else is the schema's. */
function clampInteger(value: unknown, maximum: number): unknown {
  if (typeof value !== 'string' || !/^\s*\+?\d+\s*$/.test(value)) return value;
  return Number(value) > maximum ? String(maximum) : value;
}

function lenientHook({ booleans, clamps }: Leniency) {
  return async (request: FastifyRequest): Promise<void> => {
    const query = request.query as Record<string, unknown> | undefined;
    const params = request.params as Record<string, unknown> | undefined;
    if (query) {
      for (const name of booleans.query) if (name in query) query[name] = normalizeBoolean(query[name], ['query', name]);
      for (const [name, maximum] of clamps) if (name in query) query[name] = clampInteger(query[name], maximum);
    }
    if (params) for (const name of booleans.path) if (name in params) params[name] = normalizeBoolean(params[name], ['path', name]);
  };
}

/**
 * An onRoute hook: each route whose schema takes a boolean or a page_size gets a preValidation
 * hook normalizing them. Register it before the routes.
 */
export function lenientQueries(route: RouteOptions): void {
  const leniency = leniencyOf(route.schema as { querystring?: unknown; params?: unknown } | undefined);
  if (!leniency) return;
  const existing = route.preValidation;
  route.preValidation = [lenientHook(leniency), ...(existing === undefined ? [] : [existing].flat())];
}
