// The application status record of get_status (shared/specs/marketplace-api.md, "Application
// status"): which modules answer their health probe, and, on request, backend services and the
// installed dependencies. Reading of the spec is in docs/reference/agent/observability.md.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packagePath } from '../../package-path.js';

/** A health probe resolves when the part is healthy and throws (or rejects) with the reason when not. */
export type HealthProbe = () => Promise<void> | void;

export const MODULE_NAMES = ['sandbox', 'store', 'scheduler', 'http'] as const;
export type ModuleName = (typeof MODULE_NAMES)[number];

export interface ModuleStatus {
  status: 'ok' | 'fail';
  error: string | null;
}

export interface ApplicationStatus {
  package: string;
  listening_port: number;
  /** "ok" when every probe asked for passed, "degraded" when one failed. */
  status: 'ok' | 'degraded';
  time: string;
  modules: Record<string, ModuleStatus>;
  runtime: { python_version: string; environment: string; is_docker: boolean; region: string | null };
  backend_services: Record<string, ModuleStatus>;
  python_dependencies: Array<{ name: string; version: string | null }> | null;
}

export interface StatusQuery {
  check_backend_services: boolean;
  check_modules: boolean;
  get_dependencies: boolean;
}

export interface StatusSourceOptions {
  /**
   * One probe per module; null for a module this process does not have (`driverbox serve` runs
   * no scheduler), which is then left out of `modules` rather than reported as failing.
   */
  probes: Record<ModuleName, HealthProbe | null>;
  /** Services outside this process the agent depends on, probed with check_backend_services. Default none. */
  backendServices?: Record<string, HealthProbe>;
  /** A probe that neither resolves nor throws within this time fails. Default 5000 ms. */
  probeTimeoutMs?: number;
  /** Default: the NODE_ENV environment variable, else "production". */
  environment?: string;
  region?: string | null;
  /** Default: detected (/.dockerenv, or docker/containerd in /proc/1/cgroup). */
  isDocker?: boolean;
  clock?: () => number;
}

export interface StatusSource {
  /** The record for one request; `listeningPort` is the port the request came in on. */
  read(query: StatusQuery, listeningPort: number): Promise<ApplicationStatus>;
}

interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
}

function readJson(file: string): PackageJson | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
  } catch {
    return null;
  }
}

function detectDocker(): boolean {
  if (existsSync('/.dockerenv')) return true;
  try {
    return /docker|containerd|kubepods/.test(readFileSync('/proc/1/cgroup', 'utf8'));
  } catch {
    return false;
  }
}

/** Runtime dependencies of the package with the versions actually installed (null when not found). */
export function installedDependencies(): Array<{ name: string; version: string | null }> {
  const manifest = packagePath('package.json');
  const own = manifest ? readJson(manifest) : null;
  if (!manifest || !own) return [];
  const names = Object.keys(own.dependencies ?? {}).sort();
  return names.map((name) => {
    // Walk up node_modules the way Node resolves; reading package.json directly avoids
    // packages whose "exports" hide it.
    let dir = path.dirname(manifest);
    for (;;) {
      const found = readJson(path.join(dir, 'node_modules', name, 'package.json'));
      if (found) return { name, version: found.version ?? null };
      const parent = path.dirname(dir);
      if (parent === dir) return { name, version: null };
      dir = parent;
    }
  });
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  const text = String(error);
  return text === '' ? 'probe failed without a reason' : text;
}

async function runProbe(probe: HealthProbe, timeoutMs: number): Promise<ModuleStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve().then(probe), timeout]);
    return { status: 'ok', error: null };
  } catch (error) {
    return { status: 'fail', error: errorText(error) };
  } finally {
    clearTimeout(timer);
  }
}

async function runProbes(probes: Record<string, HealthProbe>, timeoutMs: number): Promise<Record<string, ModuleStatus>> {
  const names = Object.keys(probes);
  const results = await Promise.all(names.map((name) => runProbe(probes[name]!, timeoutMs)));
  return Object.fromEntries(names.map((name, i) => [name, results[i]!]));
}

export function createStatusSource(options: StatusSourceOptions): StatusSource {
  const probes: Record<string, HealthProbe> = {};
  for (const name of MODULE_NAMES) {
    const probe = options.probes[name];
    if (probe === null) continue;
    if (typeof probe !== 'function') throw new TypeError(`status: probes.${name} must be a function (or null for a module this process lacks)`);
    probes[name] = probe;
  }
  const timeoutMs = options.probeTimeoutMs ?? 5000;
  const clock = options.clock ?? Date.now;
  const manifestPath = packagePath('package.json');
  const packageName = (manifestPath && readJson(manifestPath)?.name) || 'driverbox';
  const runtime = {
    python_version: process.versions.node,
    environment: options.environment ?? (process.env.NODE_ENV || 'production'),
    is_docker: options.isDocker ?? detectDocker(),
    region: options.region ?? null,
  };
  let dependencies: ApplicationStatus['python_dependencies'] = null;

  return {
    async read(query, listeningPort) {
      const none: Record<string, ModuleStatus> = {};
      const [modules, backend] = await Promise.all([
        query.check_modules ? runProbes(probes, timeoutMs) : none,
        query.check_backend_services ? runProbes(options.backendServices ?? {}, timeoutMs) : none,
      ]);
      if (query.get_dependencies && dependencies === null) dependencies = installedDependencies();
      const failed = [...Object.values(modules), ...Object.values(backend)].some((m) => m.status === 'fail');
      return {
        package: packageName,
        listening_port: listeningPort,
        status: failed ? 'degraded' : 'ok',
        time: new Date(clock()).toISOString(),
        modules,
        runtime: { ...runtime },
        backend_services: backend,
        python_dependencies: query.get_dependencies ? dependencies : null,
      };
    },
  };
}
