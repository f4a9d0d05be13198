// Typed errors of MonitoringClient: one class per kind a caller handles differently.
export interface ApiErrorBody {
  status?: number;
  code?: string;
  message?: string;
  detail?: Array<{ loc: Array<string | number>; msg: string; type: string }>;
}

/** The server answered with an error status. */
export class MonitoringApiError extends Error {
  readonly status: number;
  readonly operationId: string;
  /** The parsed JSON error body, or the raw text when it was not JSON. */
  readonly body: ApiErrorBody | string | null;
  readonly code: string | null;
  constructor(operationId: string, status: number, body: ApiErrorBody | string | null) {
    const text = typeof body === 'string' ? body : body?.message;
    super(`${operationId} failed with HTTP ${status}${text ? `: ${text}` : ''}`);
    this.name = 'MonitoringApiError';
    this.status = status;
    this.operationId = operationId;
    this.body = body;
    this.code = typeof body === 'object' && body && typeof body.code === 'string' ? body.code : null;
  }
}

/** 401: no key, or a key the server does not accept. */
export class MonitoringAuthError extends MonitoringApiError {
  override name = 'MonitoringAuthError';
}

/** 404: an agent, device, driver… of the request does not exist. */
export class MonitoringNotFoundError extends MonitoringApiError {
  override name = 'MonitoringNotFoundError';
}

/** 400 / 422: the request was refused as invalid; detail locates each problem. */
export class MonitoringValidationError extends MonitoringApiError {
  override name = 'MonitoringValidationError';
  get detail(): NonNullable<ApiErrorBody['detail']> {
    return (typeof this.body === 'object' && this.body?.detail) || [];
  }
}

/** The server could not be reached or the connection failed. */
export class MonitoringConnectionError extends Error {
  readonly operationId: string;
  readonly code: string | null;
  constructor(operationId: string, cause: Error & { code?: string }) {
    super(`${operationId}: cannot reach the Monitoring API: ${cause.message}`, { cause });
    this.name = 'MonitoringConnectionError';
    this.operationId = operationId;
    this.code = cause.code ?? null;
  }
}

export function errorFor(operationId: string, status: number, body: ApiErrorBody | string | null): MonitoringApiError {
  if (status === 401) return new MonitoringAuthError(operationId, status, body);
  if (status === 404) return new MonitoringNotFoundError(operationId, status, body);
  if (status === 400 || status === 422) return new MonitoringValidationError(operationId, status, body);
  return new MonitoringApiError(operationId, status, body);
}
