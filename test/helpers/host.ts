// Shared test helpers: one host per test file, and drivers written inline.
import { afterAll } from 'vitest';
import { createHost, type Host, type HostOptions, type RunRequest } from '../../host/index.js';

export function useHost(options?: HostOptions): Host {
  const host = createHost(options);
  afterAll(() => host.close());
  return host;
}

/** Runs an inline driver; `action` defaults to get_status. */
export function runSource(host: Host, source: string, request: Omit<RunRequest, 'source'> = {}) {
  return host.run({ source, filename: 'driver.js', ...request });
}
