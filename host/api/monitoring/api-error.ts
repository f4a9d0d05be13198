// The error body every failing request gets (the spec does not show one; ours is documented
// in docs/reference/monitoring-api.md): the HTTP status, a stable code, a message for people and, for
// bad input, the problems found, each located as [where, field…].
export interface ErrorDetail {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export interface ErrorBody {
  status: number;
  code: string;
  message: string;
  detail?: ErrorDetail[];
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: ErrorDetail[] | undefined;
  constructor(status: number, code: string, message: string, detail?: ErrorDetail[]) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.detail = detail;
  }

  get body(): ErrorBody {
    return { status: this.status, code: this.code, message: this.message, ...(this.detail ? { detail: this.detail } : {}) };
  }
}

/** 404 for a missing entity: notFound('agent', 7) → "agent 7 not found". */
export function notFound(entity: string, id: number | string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `${entity} ${id} not found`);
}

/** 422 for one bad field: invalid(['query', 'from'], 'must be …'). */
export function invalid(loc: Array<string | number>, msg: string, type = 'value_error'): ApiError {
  return new ApiError(422, 'VALIDATION_ERROR', `${loc.join('.')}: ${msg}`, [{ loc, msg, type }]);
}

/** 409 for a request the entity's state refuses (hiding a device that is not DOWN…). */
export function conflict(message: string): ApiError {
  return new ApiError(409, 'CONFLICT', message);
}
