// Hash routes (#/agent/1/device/2…): the server serves one page at / and never needs to know
// the console's paths.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'login'; next: string | null }
  | { page: 'agents' }
  | { page: 'agent'; agentId: number }
  | { page: 'device'; agentId: number; deviceId: number; variableId: number | null; window: WindowName }
  | { page: 'runs'; agentId: number; filters: RunFilters }
  | { page: 'run'; agentId: number; runId: number }
  /** The agent's scheduler (driverbox agent): next due, last run, skipped counts per association. */
  | { page: 'schedule'; agentId: number }
  | { page: 'drivers' }
  | { page: 'driver'; driverId: number }
  /**
   * The editor: a library driver's code, run against a device of the store (agent and device) or
   * a simulated device driverbox ships (`simulated`, its name; '' before one is chosen), chosen in
   * the page, kept in the URL.
   */
  | { page: 'editor'; driverId: number; agentId: number | null; deviceId: number | null; simulated: string | null }
  | { page: 'not-found'; path: string };

export interface RunFilters {
  device: number | null;
  driver: string | null;
  outcome: 'success' | 'failure' | null;
  /** Failures first (the default) or newest first. */
  order: 'failures_first' | 'newest';
}

export const NO_RUN_FILTERS: RunFilters = { device: null, driver: null, outcome: null, order: 'failures_first' };

export const WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type WindowName = keyof typeof WINDOWS;
export const WINDOW_LABELS: Record<WindowName, string> = { '1h': '1 hour', '24h': '24 hours', '7d': '7 days' };

function isWindow(text: string | null): text is WindowName {
  return text !== null && Object.hasOwn(WINDOWS, text);
}

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const [path = '/', queryText = ''] = raw.split('?', 2);
  const query = new URLSearchParams(queryText);
  const parts = path.split('/').filter(Boolean);
  const id = (text: string | undefined): number | null => (text !== undefined && /^\d{1,10}$/.test(text) ? Number(text) : null);
  if (parts.length === 0) return { page: 'agents' };
  if (parts[0] === 'login' && parts.length === 1) return { page: 'login', next: query.get('next') };
  if (parts[0] === 'drivers' && parts.length === 1) return { page: 'drivers' };
  if (parts[0] === 'driver') {
    const driverId = id(parts[1]);
    if (driverId !== null && parts.length === 2) return { page: 'driver', driverId };
    if (driverId !== null && parts.length === 3 && parts[2] === 'edit') {
      // "simulated=" alone: the simulated devices are the targets, none chosen yet.
      const simulated = query.get('simulated');
      if (simulated !== null) return { page: 'editor', driverId, agentId: null, deviceId: null, simulated };
      return { page: 'editor', driverId, agentId: id(query.get('agent') ?? undefined), deviceId: id(query.get('device') ?? undefined), simulated: null };
    }
  }
  if (parts[0] === 'agent') {
    const agentId = id(parts[1]);
    if (agentId !== null && parts.length === 2) return { page: 'agent', agentId };
    if (agentId !== null && parts.length === 3 && parts[2] === 'schedule') return { page: 'schedule', agentId };
    if (agentId !== null && parts.length === 3 && parts[2] === 'runs') {
      const outcome = query.get('outcome');
      return {
        page: 'runs',
        agentId,
        filters: {
          device: id(query.get('device') ?? undefined),
          driver: query.get('driver') || null,
          outcome: outcome === 'success' || outcome === 'failure' ? outcome : null,
          order: query.get('order') === 'newest' ? 'newest' : 'failures_first',
        },
      };
    }
    const runId = id(parts[3]);
    if (agentId !== null && parts.length === 4 && parts[2] === 'run' && runId !== null) return { page: 'run', agentId, runId };
    const deviceId = id(parts[3]);
    if (agentId !== null && parts[2] === 'device' && deviceId !== null) {
      const window = query.get('window');
      const common = { page: 'device', agentId, deviceId, window: isWindow(window) ? window : '24h' } as const;
      if (parts.length === 4) return { ...common, variableId: null };
      const variableId = id(parts[5]);
      if (parts.length === 6 && parts[4] === 'variable' && variableId !== null) return { ...common, variableId };
    }
  }
  return { page: 'not-found', path };
}

export function href(route: Route): string {
  switch (route.page) {
    case 'login':
      return route.next ? `#/login?next=${encodeURIComponent(route.next)}` : '#/login';
    case 'agents':
      return '#/';
    case 'agent':
      return `#/agent/${route.agentId}`;
    case 'device': {
      const base = `#/agent/${route.agentId}/device/${route.deviceId}`;
      const path = route.variableId === null ? base : `${base}/variable/${route.variableId}`;
      return route.window === '24h' ? path : `${path}?window=${route.window}`;
    }
    case 'runs': {
      const q = new URLSearchParams();
      const f = route.filters;
      if (f.device !== null) q.set('device', String(f.device));
      if (f.driver) q.set('driver', f.driver);
      if (f.outcome) q.set('outcome', f.outcome);
      if (f.order !== 'failures_first') q.set('order', f.order);
      const text = q.toString();
      return `#/agent/${route.agentId}/runs${text ? `?${text}` : ''}`;
    }
    case 'run':
      return `#/agent/${route.agentId}/run/${route.runId}`;
    case 'schedule':
      return `#/agent/${route.agentId}/schedule`;
    case 'drivers':
      return '#/drivers';
    case 'driver':
      return `#/driver/${route.driverId}`;
    case 'editor': {
      const q = new URLSearchParams();
      if (route.agentId !== null) q.set('agent', String(route.agentId));
      if (route.deviceId !== null) q.set('device', String(route.deviceId));
      if (route.simulated !== null) q.set('simulated', route.simulated);
      const text = q.toString();
      return `#/driver/${route.driverId}/edit${text ? `?${text}` : ''}`;
    }
    case 'not-found':
      return `#${route.path}`;
  }
}

export function navigate(route: Route | string, options: { replace?: boolean } = {}): void {
  const target = typeof route === 'string' ? route : href(route);
  if (options.replace) {
    history.replaceState(null, '', target);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = target;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
