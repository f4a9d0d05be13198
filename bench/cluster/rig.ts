// The rig: the network (namespaces or loopback), a throwaway PostgreSQL and Redis (the test
// helpers, listening on the host side), the logging device, and per scenario a fresh cluster: its
// own database, an emptied Redis, the inventory, and the agent processes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startPostgres, freePort, type PostgresServer } from '../../test/helpers/postgres-server.js';
import { STATEMENT_STATS_SETTINGS } from './pg-statements.js';

/** `driverbox agent`'s default --max-concurrent, each scale-out agent's bound in the rig. */
const AGENT_DEFAULT_MAX_CONCURRENT = 32;
import { startRedisServer, type RedisServer } from '../../test/helpers/redis-server.js';
import { AgentProcess, sleep } from './agents.js';
import { startLoggingDevice, type LoggingDevice } from './device.js';
import { createNetwork, type AgentNet, type RigNetwork } from './network.js';
import type { RigOptions } from './options.js';

/** A run's row as the analysis reads it. */
export interface StoredRun {
  associationId: number;
  slotMs: number;
  runner: string | null;
  started: number;
  elapsedMs: number;
  outcome: string;
}

/** An association of the rig's inventory. */
export interface RigAssociation {
  id: number;
  tag: string;
  periodMs: number;
}

/** The driver: one GET per run, naming its association (the `tag` parameter) in the URL. */
const DRIVER = `
function validate() { D.success(); }
function get_status() {
  var tag = D.getParameter('tag');
  D.device.http.get({ url: '/poll?tag=' + tag }, function (error) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    D.success([D.createVariable('tag', 'Tag', tag)]);
  });
}
`;

export class Rig {
  readonly options: RigOptions;
  readonly network: RigNetwork;
  readonly dir: string;
  postgres!: PostgresServer;
  redis!: RedisServer;
  device!: LoggingDevice;
  private clusters = 0;
  private readonly live = new Set<Cluster>();

  private constructor(options: RigOptions, network: RigNetwork) {
    this.options = options;
    this.network = network;
    this.dir = options.workDir ?? mkdtempSync(path.join(tmpdir(), 'driverbox-cluster-'));
    mkdirSync(this.dir, { recursive: true });
  }

  /** Makes the network and starts the servers; on failure everything made is undone. */
  static async start(options: RigOptions): Promise<Rig> {
    const network = createNetwork({ wanted: options.netns, subnetPrefix: options.subnet });
    const rig = new Rig(options, network);
    try {
      const host = network.hostAddress;
      const listen = host === '127.0.0.1' ? ['127.0.0.1'] : [host, '127.0.0.1'];
      [rig.postgres, rig.redis, rig.device] = await Promise.all([
        startPostgres({ listenAddresses: listen, trustNetworks: network.subnet ? [network.subnet] : [], settings: STATEMENT_STATS_SETTINGS }),
        startRedisServer({ bind: listen }),
        startLoggingDevice({ host, answerMs: options.deviceMs }),
      ]);
    } catch (error) {
      await rig.close();
      throw error;
    }
    return rig;
  }

  /** A fresh cluster: a new database, an empty Redis, an empty device log, the inventory. */
  async newCluster(label: string, scale = 1): Promise<Cluster> {
    const n = ++this.clusters;
    const database = `rig${n}_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
    const admin = new pg.Client({ connectionString: this.postgres.urlOf('postgres').replace(this.network.hostAddress, '127.0.0.1') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const redis = new Redis(this.redis.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    await redis.flushall();
    redis.disconnect();
    this.device.clear();
    const dir = path.join(this.dir, `${n}-${label}`);
    mkdirSync(dir, { recursive: true });
    const cluster = new Cluster(this, dir, this.postgres.urlOf(database), this.redis.url, scale);
    this.live.add(cluster);
    return cluster;
  }

  forget(cluster: Cluster): void {
    this.live.delete(cluster);
  }

  /** Stops every agent left, the servers, removes the namespaces. Safe to call twice. */
  async close(): Promise<void> {
    for (const cluster of this.live) await cluster.stopAll(2000).catch(() => undefined);
    this.live.clear();
    await this.device?.close().catch(() => undefined);
    await this.redis?.stop().catch(() => undefined);
    try {
      this.postgres?.destroy();
    } catch {
      // gone
    }
    this.network.teardown();
  }

  /** Synchronous last resort (process exit): kill agents, remove namespaces. */
  emergencyCleanup(): void {
    for (const cluster of this.live) for (const agent of cluster.agents) agent.signal('SIGKILL');
    this.network.teardown();
  }
}

export class Cluster {
  readonly rig: Rig;
  readonly dir: string;
  readonly storeUrl: string;
  readonly queueUrl: string;
  readonly inventory: string;
  /** Every agent process started in this cluster (dead ones too: their counters stay). */
  readonly agents: AgentProcess[] = [];
  readonly tags: string[] = [];
  private scraper: NodeJS.Timeout | null = null;
  private associationCache: Map<string, RigAssociation> | null = null;

  constructor(rig: Rig, dir: string, storeUrl: string, queueUrl: string, scale = 1) {
    this.rig = rig;
    this.dir = dir;
    this.storeUrl = storeUrl;
    this.queueUrl = queueUrl;
    const o = rig.options;
    writeFileSync(path.join(dir, 'polled.js'), DRIVER);
    const host = rig.network.hostAddress;
    const lines = ['version: 1', 'devices:'];
    const associations: string[] = [];
    const add = (prefix: string, count: number, driver: string) => {
      for (let i = 1; i <= count; i++) {
        const tag = `${prefix}${i}`;
        this.tags.push(tag);
        lines.push(`  - { name: ${tag}, ip: ${host}, portMap: { 80: ${rig.device.port} } }`);
        associations.push(`  - { driver: ${driver}, device: ${tag}, parameters: { tag: ${tag} } }`);
      }
    };
    add('f', o.fastAssociations * scale, 'fast');
    add('s', o.slowAssociations * scale, 'slow');
    lines.push(
      'drivers:',
      `  - { name: fast, path: polled.js, samplePeriod: ${o.fastPeriodS}, parameters: { tag: { type: string, default: x } } }`,
      `  - { name: slow, path: polled.js, samplePeriod: ${o.slowPeriodS}, parameters: { tag: { type: string, default: x } } }`,
      'associations:',
      ...associations,
    );
    this.inventory = path.join(dir, 'inventory.yaml');
    writeFileSync(this.inventory, `${lines.join('\n')}\n`);
  }

  /** The period of a tag's association, ms. */
  periodOfTag(tag: string): number {
    return (tag.startsWith('f') ? this.rig.options.fastPeriodS : this.rig.options.slowPeriodS) * 1000;
  }

  /** Starts agent k (a<k>) in scale-out mode and waits until it answers. */
  async startAgent(k: number, options: { wait?: boolean } = {}): Promise<AgentProcess> {
    const net = this.rig.network.agent(k);
    const agent = new AgentProcess({
      name: `a${k}`,
      net,
      port: net.namespace ? 8780 : await freePort(),
      inventory: this.inventory,
      store: this.storeUrl,
      queue: this.queueUrl,
      runTimeoutS: this.rig.options.runTimeoutS,
      runDeadlineS: this.rig.options.runDeadlineS,
      logFile: path.join(this.dir, `a${k}.log`),
    });
    this.agents.push(agent);
    if (options.wait !== false) await agent.waitReady();
    return agent;
  }

  /** Starts agents 1..n: the first alone (it migrates the store and syncs the inventory), then the rest at once. */
  async startAgents(n: number): Promise<AgentProcess[]> {
    const first = await this.startAgent(1);
    const rest = await Promise.all(Array.from({ length: n - 1 }, (_, i) => this.startAgent(i + 2)));
    return [first, ...rest];
  }

  /**
   * The embedded mode: one agent without --queue on a SQLite file, in the host's namespace, with
   * the runs at once of the whole cluster (agents × the default 32): at G7's 150 runs/s with the
   * device's 300 ms answers, 32 would cap it near 107 runs/s and it would skip slots.
   */
  async startEmbedded(): Promise<{ agent: AgentProcess; sqlite: string }> {
    const sqlite = path.join(this.dir, 'embedded.sqlite');
    const net: AgentNet = { namespace: null, address: '127.0.0.1', hostLink: null };
    const agent = new AgentProcess({
      name: 'embedded',
      net,
      port: await freePort(),
      inventory: this.inventory,
      store: sqlite,
      runTimeoutS: this.rig.options.runTimeoutS,
      maxConcurrent: this.rig.options.agents * AGENT_DEFAULT_MAX_CONCURRENT,
      logFile: path.join(this.dir, 'embedded.log'),
    });
    this.agents.push(agent);
    await agent.waitReady();
    return { agent, sqlite };
  }

  /** The live agent named `a<k>` (the latest process of that name). */
  agent(name: string): AgentProcess {
    const found = [...this.agents].reverse().find((a) => a.name === name);
    if (!found) throw new Error(`no agent ${name}`);
    return found;
  }

  liveAgents(): AgentProcess[] {
    return this.agents.filter((a) => a.alive);
  }

  async scrapeAll(): Promise<void> {
    await Promise.all(this.liveAgents().map((a) => a.scrape()));
  }

  /** Reads every live agent's /metrics every 2 s (counters survive a kill as the last reading). */
  startScraper(): void {
    this.scraper ??= setInterval(() => void this.scrapeAll(), 2000);
  }

  async query<R>(text: string, values: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.storeUrl, connectionTimeoutMillis: 10_000 });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as R[];
    } finally {
      await client.end();
    }
  }

  /** Every scale-out run stored (slot_ms set), by slot. Retries while PostgreSQL restarts. */
  async runs(): Promise<StoredRun[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        const rows = await this.query<{ association_id: string; slot_ms: string; runner: string | null; started: string; elapsed_ms: string; outcome: string }>(
          'SELECT association_id, slot_ms, runner, started, elapsed_ms, outcome FROM runs WHERE slot_ms IS NOT NULL ORDER BY slot_ms',
        );
        return rows.map((r) => ({
          associationId: Number(r.association_id),
          slotMs: Number(r.slot_ms),
          runner: r.runner,
          started: Number(r.started),
          elapsedMs: Number(r.elapsed_ms),
          outcome: r.outcome,
        }));
      } catch (error) {
        if (attempt >= 20) throw error;
        await sleep(1000);
      }
    }
  }

  /** Rows per (association, slot) above one: what UNIQUE must keep at 0. */
  async storedDuplicates(): Promise<number> {
    const rows = await this.query<{ n: string }>(
      'SELECT count(*) AS n FROM (SELECT association_id, slot_ms FROM runs WHERE slot_ms IS NOT NULL GROUP BY association_id, slot_ms HAVING count(*) > 1) d',
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** tag → association (id, period), from the store once the inventory is synced. */
  async associations(): Promise<Map<string, RigAssociation>> {
    if (this.associationCache) return this.associationCache;
    const rows = await this.query<{ id: string; name: string; sample_period: string }>(
      'SELECT a.id, d.display_name AS name, a.sample_period FROM custom_driver_associations a JOIN devices d ON d.id = a.device_id',
    );
    const map = new Map<string, RigAssociation>();
    for (const row of rows) map.set(row.name, { id: Number(row.id), tag: row.name, periodMs: Number(row.sample_period) * 1000 });
    if (map.size === this.tags.length) this.associationCache = map;
    return map;
  }

  /** SIGTERM every live agent (SIGKILL after graceMs), stop scraping. */
  async stopAll(graceMs = 10_000): Promise<void> {
    if (this.scraper) clearInterval(this.scraper);
    this.scraper = null;
    await Promise.all(this.agents.map((a) => a.stop(graceMs)));
    this.rig.forget(this);
  }
}
