// The schema validator turns "1e309" into Infinity and lets it through `type: integer` and its
// bounds, and JSON.parse does the same for a body; an integer past 2^53 has lost its digits.
// Neither reaches a handler (SQLite refuses them as LIMIT / OFFSET / ids: a 500): after
// validation, every number of the query, path and body must be finite, and a whole one safe.
import type { FastifyRequest } from 'fastify';
import { invalid } from './api-error.js';

/** Nesting followed in a body; deeper values are the schema's business (and JSON depth is bounded by the body limit). */
const MAX_DEPTH = 64;

function check(value: unknown, loc: Array<string | number>, depth: number): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(loc, `must be a finite number (got ${value})`, 'value_error.number.not_finite');
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw invalid(loc, `must be between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (got ${value})`, 'value_error.number.not_safe');
    }
    return;
  }
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return;
  if (Array.isArray(value)) value.forEach((item, i) => check(item, [...loc, i], depth + 1));
  else for (const [key, item] of Object.entries(value)) check(item, [...loc, key], depth + 1);
}

/** A preHandler hook: a 422 VALIDATION_ERROR naming the first number that cannot be used. */
export async function refuseUnusableNumbers(request: FastifyRequest): Promise<void> {
  check(request.params, ['path'], 0);
  check(request.query, ['query'], 0);
  check(request.body, ['body'], 0);
}
