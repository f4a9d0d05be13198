// A simulated device described as data: routes answered with fixed responses.
// (A first, small format; it grows with the developer kit.)
import { readFileSync } from 'node:fs';

export interface FixtureRoute {
  method?: string;
  path: string;
  status?: number;
  headers?: Record<string, string>;
  /** Response body as text, or any JSON value (sent as application/json). */
  body?: string;
  json?: unknown;
  /** Basic credentials the route requires (401 otherwise). */
  auth?: { username: string; password: string };
}

export interface Fixture {
  description?: string;
  /** Credentials and parameters to run the example driver with. */
  device?: { username?: string; password?: string };
  parameters?: Record<string, unknown>;
  routes: FixtureRoute[];
}

export function readFixture(file: string): Fixture {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`fixture ${file} cannot be read: ${(error as Error).message}`);
  }
  const routes = (data as Fixture | null)?.routes;
  if (!Array.isArray(routes) || routes.some((r) => !r || typeof r.path !== 'string' || !r.path.startsWith('/'))) {
    throw new Error(`fixture ${file}: "routes" must be a list of { path: "/…", … }`);
  }
  return data as Fixture;
}
