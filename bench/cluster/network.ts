// The rig's network: one network namespace per agent, each joined to the host by a veth pair
// whose host end sits on a bridge the rig makes, on a private /24 (host side .1, agent k at .10+k).
// Redis, PostgreSQL and the device listen on the host side; an agent's link set down is a real
// partition. Everything made here is named after this process (dbxr<pid>…) and removed by
// teardown(), which the rig calls on exit, on failure and on SIGINT / SIGTERM.
// Without root or without `ip netns`, the rig falls back to loopback (agents in the host's
// namespace) and says why.
import { execFileSync, spawnSync } from 'node:child_process';

export interface AgentNet {
  /** The agent's namespace, or null on loopback. */
  namespace: string | null;
  /** The address the agent listens on (its API and /metrics) and sends from. */
  address: string;
  /** Host end of its veth pair (partitions set it down), or null on loopback. */
  hostLink: string | null;
}

export interface RigNetwork {
  /** True when agents live in namespaces. */
  isolated: boolean;
  /** Why not, when they do not. */
  reason: string | null;
  /** Where Redis, PostgreSQL and the device listen. */
  hostAddress: string;
  /** CIDR the servers must trust (null on loopback). */
  subnet: string | null;
  /** Makes (or answers) agent k's place (k ≥ 1). */
  agent(k: number): AgentNet;
  /** The agent whose address this is (for the device log), or undefined. */
  agentOfAddress(address: string): number | undefined;
  /** Link of agent k down (true) or up (false). */
  setLinkDown(k: number, down: boolean): void;
  teardown(): void;
}

function ip(args: string[]): void {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')} failed: ${(result.stderr || result.stdout || String(result.error)).trim()}`);
}

function quietIp(args: string[]): void {
  spawnSync('ip', args, { stdio: 'ignore' });
}

/** Why namespaces cannot be used here, or null when they can. */
export function namespaceProblem(subnetPrefix: string): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root: ip netns needs CAP_SYS_ADMIN';
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
  } catch {
    return 'no `ip` command (iproute2)';
  }
  const routes = spawnSync('ip', ['-4', 'route', 'show', 'to', 'match', `${subnetPrefix}.1`], { encoding: 'utf8' }).stdout.trim();
  if (/\bdev\b/.test(routes) && !/^default\b/.test(routes)) return `${subnetPrefix}.0/24 is routed here already (${routes.split('\n')[0]}): pick another with --subnet`;
  const probe = `dbxr${process.pid}probe`.slice(0, 15);
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.status !== 0) return `ip netns add failed: ${made.stderr.trim()}`;
  quietIp(['netns', 'del', probe]);
  return null;
}

function loopback(reason: string): RigNetwork {
  return {
    isolated: false,
    reason,
    hostAddress: '127.0.0.1',
    subnet: null,
    agent: () => ({ namespace: null, address: '127.0.0.1', hostLink: null }),
    agentOfAddress: () => undefined,
    setLinkDown: () => {
      throw new Error('no namespaces: an agent has no link of its own to cut');
    },
    teardown: () => undefined,
  };
}

/** Namespaces when `wanted` and the machine allows, else loopback (with the reason). */
export function createNetwork(options: { wanted: boolean; subnetPrefix: string }): RigNetwork {
  if (!options.wanted) return loopback('--no-netns');
  const problem = namespaceProblem(options.subnetPrefix);
  if (problem) return loopback(problem);

  const tag = `dbxr${process.pid % 100000}`;
  const bridge = `${tag}br`;
  const hostAddress = `${options.subnetPrefix}.1`;
  const agents = new Map<number, AgentNet>();
  const made = { bridge: false, namespaces: [] as string[], links: [] as string[] };

  ip(['link', 'add', bridge, 'type', 'bridge']);
  made.bridge = true;
  try {
    ip(['addr', 'add', `${hostAddress}/24`, 'dev', bridge]);
    ip(['link', 'set', bridge, 'up']);
  } catch (error) {
    quietIp(['link', 'del', bridge]);
    throw error;
  }

  const network: RigNetwork = {
    isolated: true,
    reason: null,
    hostAddress,
    subnet: `${options.subnetPrefix}.0/24`,
    agent(k) {
      const known = agents.get(k);
      if (known) return known;
      const namespace = `${tag}a${k}`;
      const hostLink = `${tag}v${k}`;
      const address = `${options.subnetPrefix}.${10 + k}`;
      ip(['netns', 'add', namespace]);
      made.namespaces.push(namespace);
      ip(['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace]);
      made.links.push(hostLink);
      ip(['link', 'set', hostLink, 'master', bridge, 'up']);
      ip(['-n', namespace, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
      ip(['-n', namespace, 'link', 'set', 'eth0', 'up']);
      ip(['-n', namespace, 'link', 'set', 'lo', 'up']);
      const net = { namespace, address, hostLink };
      agents.set(k, net);
      return net;
    },
    agentOfAddress(address) {
      const plain = address.replace(/^::ffff:/, '');
      for (const [k, net] of agents) if (net.address === plain) return k;
      return undefined;
    },
    setLinkDown(k, down) {
      const net = agents.get(k);
      if (!net?.hostLink) throw new Error(`agent ${k} has no link`);
      ip(['link', 'set', net.hostLink, down ? 'down' : 'up']);
    },
    teardown() {
      // Deleting a namespace deletes its veth end, and with it the pair.
      for (const namespace of made.namespaces.splice(0)) quietIp(['netns', 'del', namespace]);
      for (const link of made.links.splice(0)) quietIp(['link', 'del', link]);
      if (made.bridge) quietIp(['link', 'del', bridge]);
      made.bridge = false;
      agents.clear();
    },
  };
  return network;
}
