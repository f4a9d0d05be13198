// Route schemas: Fastify validates requests and serializes responses with them, and the
// OpenAPI document is built from the same objects, so the document is what the server does.
import type { FastifySchema } from 'fastify';

export interface ApiRouteSchema extends FastifySchema {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  deprecated?: boolean;
  /** A count operation: 204 with the X-Entities-Count header. */
  countHeader?: boolean;
  /** The response media type when it is not JSON (createAgentVPNConnection answers text/plain). */
  produces?: string;
  /** Served without an API key (it holds no data): no key check, and `security: []` in the document. */
  public?: boolean;
}

/** Path parameters: ids are int32. */
export function idParams<K extends string>(...names: K[]): { type: 'object'; required: K[]; properties: Record<K, { type: 'integer'; minimum: number; maximum: number }> } {
  const properties = {} as Record<K, { type: 'integer'; minimum: number; maximum: number }>;
  for (const name of names) properties[name] = { type: 'integer', minimum: 0, maximum: 2147483647 };
  return { type: 'object', required: names, properties };
}

/** Pages past this are refused (422): page_number × page_size must stay an integer SQLite and JS hold exactly. */
export const MAX_PAGE_NUMBER = 2147483647;

/** page_size / page_number with the operation's bounds. */
export function pagingQuery(maxPageSize: number, defaultPageSize: number) {
  return {
    page_size: { type: 'integer', minimum: 1, maximum: maxPageSize, default: defaultPageSize },
    page_number: { type: 'integer', minimum: 0, maximum: MAX_PAGE_NUMBER, default: 0, description: `0-based; at most ${MAX_PAGE_NUMBER}; a page past the last one is empty` },
  } as const;
}

/** from / to of time-series operations; checked further by timeWindow(). */
export const timeWindowQuery = {
  from: { type: 'string', description: 'yyyy-mm-ddThh:mm:ss in UTC; default one week before to' },
  to: { type: 'string', description: 'yyyy-mm-ddThh:mm:ss in UTC; default now' },
} as const;

export const dateTime = { type: 'string', description: 'yyyy-mm-ddThh:mm:ss in UTC' } as const;
export const nullableDateTime = { type: ['string', 'null'], description: 'yyyy-mm-ddThh:mm:ss in UTC' } as const;
