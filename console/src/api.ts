// The console is a client of the Public API like any other: every call carries X-Api-Key and
// goes to /public-api/v1 on the origin that served the page.
import type { ErrorBody } from './types.js';

export const API_PREFIX = '/public-api/v1';
/** driverbox's own extension API (runs), beside the Public API, behind the same key. */
export const EXTENSION_PREFIX = '/driverbox-api/v1';

/** A failed call: status 0 when the server could not be reached. */
export class ApiFailure extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiFailure';
    this.status = status;
  }
}

let onUnauthorized: () => void = () => {};

/** Told when a call with the kept key answers 401 (the key was removed from the server). */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

async function messageOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as Partial<ErrorBody>;
    if (typeof body.message === 'string' && body.message) return body.message;
  } catch {
    // not a JSON error body
  }
  return response.statusText || `HTTP ${response.status}`;
}

/** GET path (under /public-api/v1, or a path that starts with EXTENSION_PREFIX) with `key`; answers the parsed JSON body. */
export async function apiGet<T>(path: string, key: string, options: { signal?: AbortSignal; notify401?: boolean } = {}): Promise<T> {
  const url = path.startsWith(EXTENSION_PREFIX) ? path : `${API_PREFIX}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { 'X-Api-Key': key, Accept: 'application/json' },
      cache: 'no-store',
      credentials: 'omit',
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiFailure(0, 'The server cannot be reached. Is driverbox still running?');
  }
  if (!response.ok) {
    const failure = new ApiFailure(response.status, await messageOf(response));
    if (response.status === 401 && options.notify401 !== false) onUnauthorized();
    throw failure;
  }
  return (await response.json()) as T;
}

/** POST or PUT `body` as JSON to `path` (as apiGet resolves it) with `key`; answers the parsed JSON body (null for 204). */
export async function apiSend<T>(method: 'POST' | 'PUT', path: string, key: string, body: unknown): Promise<T> {
  const url = path.startsWith(EXTENSION_PREFIX) ? path : `${API_PREFIX}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { 'X-Api-Key': key, Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiFailure(0, 'The server cannot be reached. Is driverbox still running?');
  }
  if (!response.ok) {
    const failure = new ApiFailure(response.status, await messageOf(response));
    if (response.status === 401) onUnauthorized();
    throw failure;
  }
  return response.status === 204 ? (null as T) : ((await response.json()) as T);
}

/** True for the error fetch throws when its signal aborted it. */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** The API's time form: yyyy-mm-ddThh:mm:ss in UTC. */
export function apiTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** Milliseconds of an API time (UTC, without a zone suffix); NaN when it is not one. */
export function parseApiTime(text: string): number {
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
}
