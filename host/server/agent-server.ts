// createAgent: the agent (host/agent/agent.ts) with, when options.api asks for it, the driverbox
// server beside it (driverbox-server.ts): the Monitoring API over the agent's store with /metrics,
// the status of its modules, the Marketplace emulator, the extension API with the agent's
// schedule, and the console. Associations made or deleted through the API are scheduled or
// unscheduled at once.
import { createScheduleView } from '../api/driverbox/schedule-view.js';
import type { MarketplaceSettings } from '../api/marketplace/marketplace-routes.js';
import { Agent, type AgentServeParts, type AgentServer } from '../agent/agent.js';
import type { AgentCoreOptions } from '../agent/agent-types.js';
import { startDriverboxServer } from './driverbox-server.js';

export interface AgentApiOptions {
  /** Accepted X-Api-Key values (at least one). */
  apiKeys: readonly string[];
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Told of every answered request. */
  onRequestDone?: (request: { method: string; url: string; status: number; ms: number }) => void;
  /** Ask for a key on GET /metrics too (default false: scrapers rarely send one). */
  metricsNeedKey?: boolean;
  /** The Marketplace API emulator's settings (name, agreements, access URL base, trial days). */
  marketplace?: MarketplaceSettings;
  /** Browser origins allowed to call the API (CORS); default none. */
  corsOrigins?: readonly string[];
}

export interface AgentOptions extends AgentCoreOptions {
  /** Serve the Monitoring API, /metrics and /backend-api/v1/status from this process. */
  api?: AgentApiOptions;
}

/** The agent's server, started by agent.start() once its executor runs. */
async function serveAgent(agent: Agent, options: AgentOptions, api: AgentApiOptions, parts: AgentServeParts): Promise<AgentServer> {
  return await startDriverboxServer({
    store: options.store,
    executor: parts.executor,
    externalHosts: parts.externalHosts,
    apiKeys: api.apiKeys,
    corsOrigins: api.corsOrigins,
    listen: { host: api.host ?? '127.0.0.1', port: api.port ?? 0 },
    user: 'api',
    onRequestDone: api.onRequestDone,
    // An association made or deleted through the API is scheduled or unscheduled at once.
    onStoreChanged: async () => await agent.refresh(),
    status: { ...parts.probes, metrics: agent.metrics, metricsNeedKey: api.metricsNeedKey ?? false },
    marketplace: api.marketplace ?? {},
    schedule: createScheduleView(agent, options.store),
  });
}

/** A new agent; call start() to run it. */
export function createAgent(options: AgentOptions): Agent {
  const api = options?.api;
  return new Agent(options, api ? (agent, parts) => serveAgent(agent, options, api, parts) : undefined);
}
