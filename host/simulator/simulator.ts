// startSimulator: serves a fixture on 127.0.0.1 over HTTP (and HTTPS when the fixture asks),
// keeps its state (current state name, which answer of each route comes next) and a log
// of every request, and hands back the device to run a driver with.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { startTelnetSimulator, type TelnetSimulator } from './telnet/server.js';
import { startWinrmSimulator, type WinrmSimulator } from './winrm/server.js';
import net, { type AddressInfo } from 'node:net';
import type { DeviceSpec } from '../contract/device.js';
import { DriverboxError } from '../contract/errors.js';
import type { ResolveOption } from '../contract/run-request.js';
import { makeSimulatorCertificate } from './certificate.js';
import type { Fixture, FixtureSpec } from './fixture-types.js';
import { loadFixture } from './load-fixture.js';
import { matchRoute, type RouteDecision } from './match-route.js';
import { isParsedFixture, parseFixture } from './parse-fixture.js';
import { sendResponse } from './send-response.js';
import { startSshServer, type SimulatedSshServer, type SshEvent } from './ssh/server.js';
import { startSnmpAgent, type SnmpAgent, type SnmpRequestLog } from './snmp/agent.js';

/** A request body past this is refused with 413: a fixture device is not a file store. */
const MAX_REQUEST_BODY = 1024 * 1024;
const LOOPBACK = '127.0.0.1';

export interface SimulatorOptions {
  /**
   * The IP address every listener binds (default 127.0.0.1). `device.ip` is this address. Another
   * one (a lab network's, a namespace's 10.0.0.7) exposes the simulated device to that network.
   */
  host?: string;
  /** Port of the HTTP listener (default 0: a free port). */
  port?: number;
  /** Port of the HTTPS listener, when the fixture has https (default 0: a free port). */
  httpsPort?: number;
  /** Called for each request once the simulator has decided its answer (the CLI's log). */
  onRequest?: (request: SimulatedRequest) => void;
  /** Port of the SSH listener, when the fixture has ssh (default 0: a free port). */
  sshPort?: number;
  /** Called for each SSH login and command (the CLI's log). */
  onSsh?: (event: SshEvent) => void;
  /** UDP port of the SNMP agent, for a fixture with "snmp" (default 0: a free port). */
  snmpPort?: number;
  /** Called for each SNMP request the agent answers. */
  onSnmpRequest?: (request: SnmpRequestLog) => void;
  /** Port of the Telnet listener, when the fixture has telnet (default 0: a free port). */
  telnetPort?: number;
  /** Ports of the WinRM listeners (HTTP, and HTTPS when the fixture asks), when the fixture has winrm (default 0: free ports). */
  winrmPort?: number;
  winrmHttpsPort?: number;
}

/** What happened to a request. */
export type RequestOutcome = 'answered' | 'refused' | 'unmatched' | 'reset' | 'timeout' | 'close' | 'too-large';

export interface SimulatedRequest {
  /** 1, 2, 3… in arrival order. */
  seq: number;
  /** ISO time the request was decided. */
  time: string;
  protocol: 'http' | 'https';
  method: string;
  /** Path and query as the client sent them. */
  url: string;
  headers: IncomingMessage['headers'];
  /** The request body as UTF-8 text (at most 1 MiB). */
  body: string;
  /** The route that answered or refused it: its name and index in fixture.routes; null for none. */
  route: string | null;
  routeIndex: number | null;
  /** The status sent; null when no answer was sent (reset, timeout). */
  status: number | null;
  outcome: RequestOutcome;
  /** Why it was refused, or the hints of an unmatched request; null otherwise. */
  reason: string | null;
  /** The simulator's state after this request. */
  state: string;
}

/** The device to run a driver with: pass it as `host.run({ device })`. */
export interface SimulatedDevice extends DeviceSpec {
  ip: string;
  portMap: Record<number, number>;
}

export interface Simulator {
  readonly fixture: Fixture;
  readonly httpPort: number;
  /** null when the fixture has no https. */
  readonly httpsPort: number | null;
  /** UDP port of the simulated SNMP agent; null when the fixture has no snmp. */
  readonly snmpPort: number | null;
  /** Device port → simulator port: { 80: httpPort, 443: httpsPort } by default. */
  readonly portMap: Record<number, number>;
  readonly device: SimulatedDevice;
  /** The fixture's driver parameters: pass them as `host.run({ parameters })`. */
  readonly parameters: Record<string, unknown>;
  /**
   * The fixture's host names (device.host, https.hosts) pinned to this simulator: pass them as
   * `host.run({ resolve })` so a driver that dials the name (or an external host of that name) gets here.
   */
  readonly resolve: ResolveOption;
  /** Every request so far, in arrival order (a live list). */
  readonly requests: readonly SimulatedRequest[];
  /** The current state (whenState / setState). */
  readonly state: string;
  /** The SSH listener's port and host key fingerprint; null when the fixture has no ssh. */
  readonly ssh: { port: number; fingerprint: string } | null;
  /** The self-signed certificate served over HTTPS (PEM); add it to a host's trustedCAs to trust it. null without https. */
  readonly certificatePem: string | null;
  /** Back to the start: initial state, every route at its first answer, empty request log. */
  reset(): void;
  /** Stops listening and drops every connection (including ones held by "timeout"). */
  close(): Promise<void>;
  /** The simulated Telnet service (its port and event log); null when the fixture has none. */
  readonly telnet: TelnetSimulator | null;
  /** The simulated WinRM service (its port and event log); null when the fixture has none. */
  readonly winrm: WinrmSimulator | null;
}

function checkPort(value: number | undefined, name: string): number {
  if (value === undefined) return 0;
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new DriverboxError('INVALID_OPTIONS', `${name} must be an integer 0–65535 (got ${JSON.stringify(value)})`);
  return value;
}

function toFixture(source: string | Fixture | FixtureSpec): Fixture {
  if (typeof source === 'string') return loadFixture(source);
  if (isParsedFixture(source)) return source;
  return parseFixture(source);
}

async function listen(server: Server, address: string, port: number, what: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the port is in use' : error.code === 'EACCES' ? 'not allowed (ports below 1024 need privileges)' : error.message;
      reject(Object.assign(new Error(`cannot serve ${what} on ${address}:${port}: ${why}`), { code: error.code }));
    };
    server.once('error', failed);
    server.listen(port, address, () => {
      server.off('error', failed);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

async function readBody(req: IncomingMessage): Promise<{ body: Buffer; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_REQUEST_BODY) chunks.push(chunk);
  }
  return { body: Buffer.concat(chunks), tooLarge: size > MAX_REQUEST_BODY };
}

function sendJson(res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(data));
}

export async function startSimulator(source: string | Fixture | FixtureSpec, options: SimulatorOptions = {}): Promise<Simulator> {
  const fixture = toFixture(source);
  const httpPortWanted = checkPort(options.port, 'port');
  const httpsPortWanted = checkPort(options.httpsPort, 'httpsPort');
  checkPort(options.snmpPort, 'snmpPort');
  const address = options.host ?? LOOPBACK;
  if (net.isIP(address) !== 4) throw new DriverboxError('INVALID_OPTIONS', `host must be an IPv4 address to listen on, such as 127.0.0.1 (got ${JSON.stringify(address)})`);
  if (options.httpsPort !== undefined && !fixture.https) {
    throw new DriverboxError('INVALID_OPTIONS', 'httpsPort was given, but the fixture does not serve https (add "https": true to it)');
  }

  let state = fixture.initialState;
  const turns = new Map<number, number>(); // route index → answers given
  const requests: SimulatedRequest[] = [];
  const held = new Set<ServerResponse>(); // requests a "timeout" route never answers
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  // The realm a device names in its 401: the fixture's description, made safe for a quoted header value.
  const challenge = `Basic realm="${(fixture.description ?? 'simulated device').replace(/["\\\r\n]/g, '').slice(0, 80)}"`;

  function record(entry: Omit<SimulatedRequest, 'seq' | 'time' | 'state'>): void {
    const logged: SimulatedRequest = { seq: requests.length + 1, time: new Date().toISOString(), ...entry, state };
    requests.push(logged);
    try {
      options.onRequest?.(logged);
    } catch (error) {
      process.emitWarning(`simulator onRequest threw: ${(error as Error).message}`);
    }
  }

  function answer(decision: Extract<RouteDecision, { kind: 'answer' }>, res: ServerResponse, base: Pick<SimulatedRequest, 'protocol' | 'method' | 'url' | 'headers' | 'body'>): void {
    const { route, index } = decision;
    const turn = turns.get(index) ?? 0;
    turns.set(index, turn + 1);
    const response = route.responses[Math.min(turn, route.responses.length - 1)]!;
    if (response.setState !== null) state = response.setState;
    const outcome = response.fail ?? 'answered';
    record({ ...base, route: route.name, routeIndex: index, status: outcome === 'reset' || outcome === 'timeout' ? null : response.status, outcome, reason: null });
    const send = () => sendResponse(res, response, (r) => held.add(r));
    if (response.delayMs === 0) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, response.delayMs);
    timers.add(timer);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, protocol: 'http' | 'https'): Promise<void> {
    const { body, tooLarge } = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://device');
    const base = { protocol, method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: body.toString('utf8') };
    if (tooLarge) {
      record({ ...base, route: null, routeIndex: null, status: 413, outcome: 'too-large', reason: `the body is larger than ${MAX_REQUEST_BODY} bytes` });
      return sendJson(res, 413, { error: `the simulator takes request bodies up to ${MAX_REQUEST_BODY} bytes` });
    }
    const decision = matchRoute(fixture.routes, { protocol, method: base.method, path: url.pathname, query: url.searchParams, headers: req.headers, body, state });
    switch (decision.kind) {
      case 'unmatched': {
        const reason = decision.hints.join('; ');
        record({ ...base, route: null, routeIndex: null, status: 404, outcome: 'unmatched', reason });
        return sendJson(res, 404, {
          error: `no route of the fixture matches ${base.method} ${base.url}`,
          request: { protocol, method: base.method, path: url.pathname, query: Object.fromEntries(url.searchParams), state },
          hints: decision.hints,
        });
      }
      case 'refuse':
        record({ ...base, route: decision.route.name, routeIndex: decision.index, status: decision.status, outcome: 'refused', reason: decision.reason });
        return sendJson(res, decision.status, { error: decision.reason, route: decision.route.name }, decision.basicChallenge ? { 'www-authenticate': challenge } : {});
      case 'answer':
        return answer(decision, res, base);
    }
  }

  const onRequest = (protocol: 'http' | 'https') => (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res, protocol).catch((error: unknown) => {
      // A client that went away mid-body needs nothing more; anything else is the simulator's own fault: say so.
      if (req.destroyed || res.headersSent) return void res.destroy();
      process.emitWarning(`driverbox simulator: ${req.method} ${req.url}: ${(error as Error).stack ?? String(error)}`);
      sendJson(res, 500, { error: `the simulator failed on this request: ${(error as Error).message}` });
    });
  };
  const servers: Server[] = [];
  let sshServer: SimulatedSshServer | null = null;
  /** What other protocols' servers need to stop (the SSH server, the SNMP agent…). */
  const closers: Array<() => Promise<void>> = [];
  try {
    const http = createHttpServer(onRequest('http'));
    servers.push(http);
    const httpPort = await listen(http, address, httpPortWanted, 'http');
    let httpsPort: number | null = null;
    let certificatePem: string | null = null;
    if (fixture.https) {
      const certificate = await makeSimulatorCertificate({
        commonName: fixture.device.host ?? 'localhost',
        names: [...(fixture.device.host ? [fixture.device.host] : []), ...fixture.https.hosts, address],
        expiresInDays: fixture.https.expiresInDays,
      });
      certificatePem = certificate.cert;
      const https = createHttpsServer({ cert: certificate.cert, key: certificate.key }, onRequest('https'));
      servers.push(https as unknown as Server);
      httpsPort = await listen(https as unknown as Server, address, httpsPortWanted, 'https');
    }
    let snmpAgent: SnmpAgent | null = null;
    if (fixture.snmp) {
      snmpAgent = await startSnmpAgent(fixture.snmp, { address, port: options.snmpPort, onRequest: options.onSnmpRequest });
      closers.push(() => snmpAgent!.close());
    }
    const portMap: Record<number, number> = {};
    if (fixture.snmp && snmpAgent) portMap[fixture.snmp.port] = snmpAgent.port;
    for (const port of fixture.http.ports) portMap[port] = httpPort;
    for (const port of fixture.https?.ports ?? []) portMap[port] = httpsPort!;
    if (fixture.ssh) {
      sshServer = await startSshServer(fixture.ssh, { port: checkPort(options.sshPort, 'sshPort'), host: address, onEvent: options.onSsh });
      const ssh = sshServer;
      closers.push(() => ssh.close());
      portMap[fixture.ssh.port] = sshServer.port;
    }
    const telnet = fixture.telnet ? await startTelnetSimulator(fixture.telnet, address, checkPort(options.telnetPort, 'telnetPort')) : null;
    if (telnet) {
      closers.push(() => telnet.close());
      portMap[fixture.telnet!.port] = telnet.port;
    }
    const winrm = fixture.winrm ? await startWinrmSimulator(fixture.winrm, address, checkPort(options.winrmPort, 'winrmPort'), checkPort(options.winrmHttpsPort, 'winrmHttpsPort')) : null;
    if (winrm) {
      closers.push(() => winrm.close());
      portMap[fixture.winrm!.port] = winrm.port;
    }
    if (winrm?.httpsPort) portMap[fixture.winrm!.httpsPort!] = winrm.httpsPort;
    // Only the simulator's ports: another port of its address is the host machine's, not the device's.
    const device: SimulatedDevice = { ip: address, portMap, onlyMappedPorts: true };
    for (const key of ['host', 'username', 'password', 'serial', 'macAddress'] as const) {
      if (fixture.device[key] !== null) device[key] = fixture.device[key];
    }
    if (fixture.snmp) device.snmp = { version: 'v2c', community: fixture.snmp.community, ...(fixture.snmp.writeCommunity ? { writeCommunity: fixture.snmp.writeCommunity } : {}) };

    const resolve: ResolveOption = {};
    for (const name of [fixture.device.host, ...(fixture.https?.hosts ?? [])]) {
      if (name && !net.isIP(name) && name.toLowerCase() !== 'localhost') resolve[name] = { ip: address, portMap, onlyMappedPorts: true };
    }

    return {
      fixture,
      httpPort,
      httpsPort,
      snmpPort: snmpAgent?.port ?? null,
      portMap,
      device,
      parameters: fixture.parameters,
      resolve,
      requests,
      get state() {
        return state;
      },
      ssh: sshServer ? { port: sshServer.port, fingerprint: sshServer.fingerprint } : null,
      certificatePem,
      telnet,
      winrm,
      reset() {
        state = fixture.initialState;
        turns.clear();
        requests.length = 0;
      },
      async close() {
        if (closed) return;
        closed = true;
        await Promise.all([closeAll(servers, held, timers), ...closers.map((close) => close())]);
      },
    };
  } catch (error) {
    await Promise.all([closeAll(servers, held, timers), ...closers.map((close) => close())]);
    throw error;
  }
}

async function closeAll(servers: Server[], held: Set<ServerResponse>, timers: Set<NodeJS.Timeout>): Promise<void> {
  for (const timer of timers) clearTimeout(timer);
  timers.clear();
  for (const res of held) res.socket?.destroy();
  held.clear();
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          if (!server.listening) return resolve();
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
}

