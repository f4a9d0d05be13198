// CORS for browser clients (Domotz's Node-RED editor loads the OpenAPI document from the page):
// off unless origins are configured. A preflight is answered here, before the API key is
// checked (browsers never send the key with one); an actual request from an allowed origin is
// served as any other, with the headers that let the page read the answer, its count headers
// included. Our own small hook: the API needs no more than this.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.js';

const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
/** Always allowed; headers a preflight asks for beyond these are allowed too (no cookies are involved). */
const ALLOWED_HEADERS = ['X-Api-Key', 'Content-Type', 'Accept'];
const EXPOSED_HEADERS = 'X-Entities-Count, Location, Content-Length';
const PREFLIGHT_MAX_AGE_S = 600;

/** "https://Example.com/" → "https://example.com" (an Origin header has no path and lower-case scheme and host). */
export function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/**
 * An origin as configured: "*" or scheme://host[:port], nothing else (a path or a typo would
 * never match what a browser sends, and silently allow nothing).
 */
export function checkCorsOrigin(origin: string, where: string): string {
  if (origin === '*') return origin;
  const normalized = normalizeOrigin(origin);
  if (!/^https?:\/\/[a-z0-9.\-[\]:]+$/.test(normalized)) {
    throw new Error(`${where}: "${origin}" is not an origin: write scheme://host[:port] (e.g. http://localhost:1880), or * for any`);
  }
  return normalized;
}

/** An onRequest hook answering preflights and marking answers for the allowed origins. */
export function corsHook(origins: readonly string[]) {
  const any = origins.includes('*');
  const allowed = new Set(origins.map(normalizeOrigin));
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const origin = request.headers.origin;
    if (!origin) return undefined;
    const ok = any || allowed.has(normalizeOrigin(origin));
    // The answer depends on the Origin header: caches must not give one origin's answer to another.
    if (!any) reply.header('Vary', 'Origin');
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (!ok) {
      if (preflight) throw new ApiError(403, 'CORS_ORIGIN_NOT_ALLOWED', `origin ${origin} is not among the server's CORS origins (--cors-origin, config corsOrigins)`);
      return undefined; // served, but without the header the browser would need to hand it to the page
    }
    reply.header('Access-Control-Allow-Origin', any ? '*' : origin);
    if (!preflight) {
      reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      return undefined;
    }
    const asked = String(request.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    const headers = [...ALLOWED_HEADERS, ...asked.filter((h) => !ALLOWED_HEADERS.some((a) => a.toLowerCase() === h.toLowerCase()))];
    if (!any) reply.header('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    // Answered here: a hook that replies returns the reply, and the request goes no further.
    return reply
      .code(204)
      .header('Access-Control-Allow-Methods', ALLOWED_METHODS)
      .header('Access-Control-Allow-Headers', headers.join(', '))
      .header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S))
      .send();
  };
}
