// One undici dispatcher per device origin (keep-alive, bounded connections), shared by
// all runs of that device in this host, closed when the host closes.
import { Agent } from 'undici';

export class DispatcherRegistry {
  readonly #agents = new Map<string, Agent>();

  get(origin: string, rejectUnauthorized: boolean): Agent {
    const key = `${origin}|${rejectUnauthorized}`;
    let agent = this.#agents.get(key);
    if (!agent) {
      agent = new Agent({ connections: 4, keepAliveTimeout: 10_000, connect: { rejectUnauthorized } });
      this.#agents.set(key, agent);
    }
    return agent;
  }

  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => a.destroy())));
  }
}
