// The OpenAPI 3.0.3 document of what this server implements, built from the route schemas it
// registered (so a route without a schema, or a schema without a route, cannot be listed). The
// route schemas are JSON Schema (what Fastify's ajv takes); 3.0 has its own dialect, so each is
// converted (toOpenApi30) and the document validates as the version it declares.
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ApiRouteSchema } from './route-schema.js';

export const API_PREFIX = '/public-api/v1';

interface CollectedRoute {
  method: string;
  url: string;
  schema: ApiRouteSchema;
}

type JsonSchema = Record<string, unknown>;

/** The version of the Domotz Public API reference the operations follow (the document's info.version). */
export const REFERENCE_VERSION = '1.14.0';

/**
 * A JSON Schema in OpenAPI 3.0's dialect: a type list becomes one type with `nullable: true` (or anyOf
 * for several), `const` an enum of one, `examples` one `example`; the keywords 3.0 lacks are dropped.
 */
export function toOpenApi30(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApi30);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    switch (key) {
      case 'type':
        if (Array.isArray(value)) {
          const types = value.filter((t) => t !== 'null') as string[];
          if (types.length < value.length) out.nullable = true;
          if (types.length === 1) out.type = types[0];
          else if (types.length > 1) out.anyOf = types.map((type) => ({ type }));
        } else if (value !== 'null') out.type = value;
        else out.nullable = true;
        break;
      case 'const':
        out.enum = [value];
        break;
      case 'examples':
        if (Array.isArray(value) && value.length > 0) out.example = value[0];
        break;
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as JsonSchema).map(([name, prop]) => [name, toOpenApi30(prop)]));
        break;
      case '$id':
      case 'patternProperties':
      case '$schema':
      case '$comment':
      case 'if':
      case 'then':
      case 'else':
      case 'propertyNames':
      case 'contains':
      case 'dependentRequired':
      case 'unevaluatedProperties':
        break; // not in 3.0's Schema Object; the server still validates with them
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value === 'number') {
          out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
          out[key] = true;
        } else out[key] = value;
        break;
      default:
        out[key] = toOpenApi30(value);
    }
  }
  return out;
}

/** Collects routes as they are registered; call before registering them. */
export function collectRoutes(app: FastifyInstance): CollectedRoute[] {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as ApiRouteSchema | undefined;
    if (!schema?.operationId) return;
    for (const method of [route.method].flat()) routes.push({ method: method.toLowerCase(), url: route.url, schema });
  });
  return routes;
}

function objectProperties(schema: unknown): { properties: Record<string, JsonSchema>; required: string[] } {
  const s = (schema ?? {}) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return { properties: s.properties ?? {}, required: s.required ?? [] };
}

function parametersOf(schema: ApiRouteSchema): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, source] of [
    ['path', schema.params],
    ['query', schema.querystring],
    ['header', schema.headers],
  ] as const) {
    const { properties, required } = objectProperties(source);
    for (const [name, prop] of Object.entries(properties)) {
      const { description, ...rest } = prop as { description?: string };
      out.push({ name, in: where, required: where === 'path' || required.includes(name), ...(description ? { description } : {}), schema: toOpenApi30(rest) });
    }
  }
  return out;
}

function responsesOf(schema: ApiRouteSchema): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {};
  const declared = (schema.response ?? {}) as Record<string, JsonSchema>;
  for (const [status, body] of Object.entries(declared)) {
    const { description, ...rest } = body as { description?: string; type?: unknown };
    const entry: JsonSchema = { description: description ?? (status.startsWith('2') ? 'Success' : 'Error') };
    const isEmpty = status === '204' || (rest.type === 'null');
    if (!isEmpty) entry.content = { [schema.produces ?? 'application/json']: { schema: toOpenApi30(rest) } };
    responses[status] = entry;
  }
  if (schema.countHeader) {
    responses['204'] = {
      description: 'The count, in the X-Entities-Count header',
      headers: { 'X-Entities-Count': { schema: { type: 'integer' }, description: 'How many entities the list would answer' } },
    };
  }
  const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  if (!schema.public) responses['401'] = { description: 'Missing or invalid X-Api-Key', ...error };
  if (JSON.stringify(schema.params ?? {}).includes('"agent_id"')) responses['403'] = { description: "The agent's plan gives no API access", ...error };
  if (JSON.stringify(schema.params ?? {}).includes('_id')) responses['404'] = { description: 'An entity of the path does not exist', ...error };
  responses['422'] = { description: 'A path, query or body value is invalid', ...error };
  return responses;
}

export function buildOpenApiDocument(routes: CollectedRoute[], version: string = REFERENCE_VERSION): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    if (!route.url.startsWith(API_PREFIX)) continue;
    const path = route.url.slice(API_PREFIX.length).replace(/:([A-Za-z_]+)/g, '{$1}') || '/';
    const s = route.schema;
    const operation: JsonSchema = {
      operationId: s.operationId,
      tags: s.tags,
      summary: s.summary,
      ...(s.description ? { description: s.description } : {}),
      ...(s.deprecated ? { deprecated: true } : {}),
      parameters: parametersOf(s),
      responses: responsesOf(s),
      ...(s.public ? { security: [] } : {}),
    };
    if (s.body) operation.requestBody = { required: true, content: { 'application/json': { schema: toOpenApi30(s.body) } } };
    (paths[path] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'driverbox local Monitoring Public API',
      version,
      description: 'The operations of the monitoring Public API v1 that this driverbox server implements, over its embedded store.',
    },
    servers: [{ url: API_PREFIX }],
    security: [{ ApiKeyAuth: [] }],
    paths,
    components: {
      securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['status', 'code', 'message'],
          properties: {
            status: { type: 'integer' },
            code: { type: 'string' },
            message: { type: 'string' },
            detail: {
              type: 'array',
              items: {
                type: 'object',
                properties: { loc: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, msg: { type: 'string' }, type: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  };
}
