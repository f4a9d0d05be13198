// Typed errors of MarketplaceClient: one class per kind a caller handles differently.
import type { ValidationProblem } from '../types.js';

/** The server answered with an error status. */
export class MarketplaceApiError extends Error {
  readonly status: number;
  readonly operationId: string;
  /** The parsed JSON body ({detail}), or the raw text when it was not JSON. */
  readonly body: unknown;
  constructor(operationId: string, status: number, body: unknown) {
    super(`${operationId} failed with HTTP ${status}${describeBody(body)}`);
    this.name = 'MarketplaceApiError';
    this.status = status;
    this.operationId = operationId;
    this.body = body;
  }
}

function describeBody(body: unknown): string {
  if (typeof body === 'string' && body !== '') return `: ${body}`;
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return `: ${detail}`;
  if (Array.isArray(detail)) return `: ${detail.map((d: ValidationProblem) => `${(d.loc ?? []).join('.')}: ${d.msg}`).join('; ')}`;
  return '';
}

/** 401: no key, or a key the server does not accept. */
export class MarketplaceAuthError extends MarketplaceApiError {
  override name = 'MarketplaceAuthError';
}

/** 404: no account with the e-mail of the path (or no such operation). */
export class MarketplaceNotFoundError extends MarketplaceApiError {
  override name = 'MarketplaceNotFoundError';
}

/** 409: an account with the e-mail of a create body already exists. */
export class MarketplaceConflictError extends MarketplaceApiError {
  override name = 'MarketplaceConflictError';
}

/** 422: the request was refused as invalid; detail locates each problem. */
export class MarketplaceValidationError extends MarketplaceApiError {
  override name = 'MarketplaceValidationError';
  get detail(): ValidationProblem[] {
    const detail = (this.body as { detail?: unknown } | null)?.detail;
    return Array.isArray(detail) ? (detail as ValidationProblem[]) : [];
  }
}

/** The server could not be reached or the connection failed. */
export class MarketplaceConnectionError extends Error {
  readonly operationId: string;
  readonly code: string | null;
  constructor(operationId: string, cause: Error & { code?: string }) {
    super(`${operationId}: cannot reach the Marketplace API: ${cause.message}`, { cause });
    this.name = 'MarketplaceConnectionError';
    this.operationId = operationId;
    this.code = cause.code ?? null;
  }
}

export function marketplaceErrorFor(operationId: string, status: number, body: unknown): MarketplaceApiError {
  if (status === 401) return new MarketplaceAuthError(operationId, status, body);
  if (status === 404) return new MarketplaceNotFoundError(operationId, status, body);
  if (status === 409) return new MarketplaceConflictError(operationId, status, body);
  if (status === 422) return new MarketplaceValidationError(operationId, status, body);
  return new MarketplaceApiError(operationId, status, body);
}
