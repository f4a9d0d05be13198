// Every request carries X-Api-Key; the keys come from the server's configuration.
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
