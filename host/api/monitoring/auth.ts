// Every request carries X-Api-Key (but for the few routes that hold no data); the keys come
// from the server's configuration.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.js';

const digest = (key: string): Buffer => createHash('sha256').update(key).digest();

/** An onRequest hook accepting any of the keys; compared in constant time. */
export function apiKeyCheck(keys: readonly string[], headerName = 'x-api-key') {
  const digests = keys.map(digest);
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const given = request.headers[headerName];
    const key = Array.isArray(given) ? given[0] : given;
    if (!key) throw new ApiError(401, 'UNAUTHORIZED', `missing ${headerName === 'x-api-key' ? 'X-Api-Key' : headerName} header`);
    const candidate = digest(key);
    let ok = false;
    for (const known of digests) ok = timingSafeEqual(candidate, known) || ok;
    if (!ok) throw new ApiError(401, 'UNAUTHORIZED', 'invalid API key');
  };
}

/**
 * apiKeyCheck for every route but `publicRoutes` (route URLs, as registered): those hold no data
 * and are served to anyone (the OpenAPI document, which browser clients load before they have a
 * key). A path no route matches is checked like any other, so without a key it is a 401 and
 * tells nothing of which operations exist.
 */
export function apiKeyCheckExcept(keys: readonly string[], publicRoutes: ReadonlySet<string>) {
  const check = apiKeyCheck(keys);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.is404 || !publicRoutes.has(request.routeOptions.url ?? '')) await check(request, reply);
  };
}
