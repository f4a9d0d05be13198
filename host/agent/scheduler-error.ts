// Errors the scheduler throws at its caller: a bad job or option, or a call it cannot honour.
export type SchedulerErrorCode = 'INVALID_JOB' | 'INVALID_OPTIONS' | 'DUPLICATE_JOB' | 'UNKNOWN_JOB' | 'SCHEDULER_STOPPED';

export class SchedulerError extends Error {
  readonly code: SchedulerErrorCode;
  constructor(code: SchedulerErrorCode, message: string) {
    super(message);
    this.name = 'SchedulerError';
    this.code = code;
  }
}
