// Loading one API answer into a component: data, error, loading, and a reload that keeps the
// last data on screen while the next answer comes (live values refresh without flicker).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { apiGet, ApiFailure, isAbort } from './api.js';
import type { Agent } from './types.js';

export interface Loaded<T> {
  data: T | null;
  error: ApiFailure | null;
  loading: boolean;
  /** When the last answer arrived (ms). */
  at: number | null;
  reload(): void;
}

export function useApi<T>(path: string | null, key: string, options: { refreshMs?: number } = {}): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiFailure | null; loading: boolean; at: number | null; path: string | null }>({
    data: null,
    error: null,
    loading: path !== null,
    at: null,
    path,
  });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  const lastPath = useRef(path);

  useEffect(() => {
    if (path === null) return;
    const samePath = lastPath.current === path;
    lastPath.current = path;
    const controller = new AbortController();
    setState((s) => (samePath ? { ...s, loading: true } : { data: null, error: null, loading: true, at: null, path }));
    apiGet<T>(path, key, { signal: controller.signal }).then(
      (data) => setState({ data, error: null, loading: false, at: Date.now(), path }),
      (error: unknown) => {
        if (isAbort(error)) return;
        const failure = error instanceof ApiFailure ? error : new ApiFailure(0, String(error));
        setState((s) => ({ ...s, error: failure, loading: false, path }));
      },
    );
    return () => controller.abort();
  }, [path, key, tick]);

  const refreshMs = options.refreshMs;
  useEffect(() => {
    if (!refreshMs || path === null) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, path, reload]);

  const current = state.path === path;
  return { data: current ? state.data : null, error: current ? state.error : null, loading: current ? state.loading : true, at: current ? state.at : null, reload };
}

/** Loading something made of several calls (`load` gets a signal); reloads when `deps` change. */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): { data: T | null; error: ApiFailure | null } {
  const [state, setState] = useState<{ data: T | null; error: ApiFailure | null }>({ data: null, error: null });
  useEffect(() => {
    const controller = new AbortController();
    setState({ data: null, error: null });
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: null });
      },
      (error: unknown) => {
        if (isAbort(error) || controller.signal.aborted) return;
        setState({ data: null, error: error instanceof ApiFailure ? error : new ApiFailure(0, String(error)) });
      },
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return state;
}

/** One agent (getAgent) and its name, "Agent 3" until it has come (or when it could not). */
export function useAgent(agentId: number, key: string): Loaded<Agent> & { name: string } {
  const agent = useApi<Agent>(`/agent/${agentId}`, key);
  return { ...agent, name: agent.data?.display_name ?? `Agent ${agentId}` };
}
