// The fixture format of a simulated device, in two shapes: what a person writes (the
// *Spec types, the JSON file's shape) and what the simulator runs (Fixture: validated,
// defaults filled in, bodies read, credentials placeholders filled).
// docs/reference/simulator.md describes every field.
import type { FixtureSsh, SshSpec } from './ssh/types.js';
import type { SnmpFixture, SnmpFixtureSpec } from './snmp/fixture.js';
import type { TelnetFixture, TelnetSpec } from './telnet/types.js';
import type { WinrmFixture, WinrmSpec } from './winrm/types.js';
import type { FixtureDevice } from './fixture-device.js';

/** The fixture format version this driverbox reads. */
export const FIXTURE_VERSION = 1;

/** How a route may fail instead of answering. */
export type FailureMode = 'reset' | 'timeout' | 'close';

/** A value a request must carry: this exact text, or `true` for any value. */
export type Expected = string | true;

export interface ResponseSpec {
  /** HTTP status, 200–599 (default 200). */
  status?: number;
  /** Response headers; a list sends the header once per value. */
  headers?: Record<string, string | string[]>;
  /** One of body (text), json (any value, sent as JSON) or bodyFile (relative to the fixture file). */
  body?: string;
  json?: unknown;
  bodyFile?: string;
  /** One or several Set-Cookie values, e.g. "SID=abc; Path=/; HttpOnly". */
  setCookie?: string | string[];
  /** Wait this long before answering (or failing). */
  delayMs?: number;
  /** reset: drop the connection, no answer; timeout: never answer; close: cut the body short. */
  fail?: FailureMode;
  /** The simulator's state after this answer (see whenState). */
  setState?: string;
}

export interface RouteSpec extends ResponseSpec {
  /** Shown in the request log (default "METHOD /path"). */
  name?: string;
  /** Default GET. */
  method?: string;
  /** Exact path; a query in it ("/x?page=1") is read as `query` constraints. */
  path: string;
  /** Query parameters the request must have (others may be present too). */
  query?: Record<string, Expected>;
  /** Only over this protocol (default both). */
  protocol?: 'http' | 'https';
  /** Only while the simulator is in (one of) these states. */
  whenState?: string | string[];
  /** Basic credentials the request must send: "device" for the fixture's device credentials. */
  auth?: 'device' | { username: string; password: string };
  /** Cookies the request must send (name → value). */
  cookie?: Record<string, Expected>;
  /** Request headers the request must send (name → value). */
  requireHeaders?: Record<string, Expected>;
  /** Fields the request body (JSON object or form) must hold (name → value). */
  requireBody?: Record<string, Expected>;
  /** Answers given in turn, the last one repeating; instead of the response fields above. */
  responses?: ResponseSpec[];
}

export interface FixtureSpec {
  /** Format version: 1. */
  fixture: number;
  description?: string;
  /** What the driver is run with: credentials, host name, serial, MAC address. */
  device?: { username?: string; password?: string; host?: string; serial?: string; macAddress?: string };
  /** The driver's parameters (D.getParameter). */
  parameters?: Record<string, unknown>;
  /** The state the simulator starts in (default "start"). */
  state?: string;
  /** Device ports the driver uses for plain HTTP (default [80]). */
  http?: { ports?: number[] };
  /** Serve the routes over TLS too, with a self-signed certificate made at start. */
  https?: boolean | { ports?: number[]; hosts?: string[]; expiresInDays?: number };
  /** HTTP routes; may be empty (or, in a file, left out) when the device speaks another protocol (ssh, snmp…). */
  routes: RouteSpec[];
  /** A simulated SSH server (docs/reference/simulator/ssh.md); with it, routes may be left out. */
  ssh?: SshSpec;
  /** A simulated SNMP agent (docs/reference/simulator/snmp.md). */
  snmp?: SnmpFixtureSpec;
  /** A simulated Telnet service (docs/reference/simulator/telnet.md). */
  telnet?: TelnetSpec;
  /** A simulated WinRM service (docs/reference/simulator/winrm.md). */
  winrm?: WinrmSpec;
}

/** One answer of a route, ready to send. */
export interface FixtureResponse {
  status: number;
  /** Lower-case names; content-type filled in from json / bodyFile when not given. */
  headers: Record<string, string | string[]>;
  body: Buffer;
  setCookie: string[];
  delayMs: number;
  fail: FailureMode | null;
  setState: string | null;
}

export interface FixtureRoute {
  /** The route's name, or "METHOD /path". */
  name: string;
  method: string;
  path: string;
  query: Record<string, Expected>;
  protocol: 'http' | 'https' | null;
  whenState: string[] | null;
  auth: { username: string; password: string } | null;
  cookie: Record<string, Expected>;
  /** Lower-case header names. */
  requireHeaders: Record<string, Expected>;
  requireBody: Record<string, Expected>;
  /** At least one; the last repeats. */
  responses: FixtureResponse[];
}

export interface FixtureHttps {
  ports: number[];
  /** Names the certificate is made for, besides localhost, 127.0.0.1 and device.host. */
  hosts: string[];
  expiresInDays: number;
}

/** A validated fixture, as loadFixture / parseFixture return it. */
export interface Fixture {
  version: typeof FIXTURE_VERSION;
  /** Absolute path of the file it was read from; null when built from an object. */
  file: string | null;
  description: string | null;
  device: FixtureDevice;
  parameters: Record<string, unknown>;
  initialState: string;
  http: { ports: number[] };
  https: FixtureHttps | null;
  routes: FixtureRoute[];
  /** The simulated SSH server; null when the fixture has none. */
  ssh: FixtureSsh | null;
  /** The simulated SNMP agent; null when the fixture has none. */
  snmp: SnmpFixture | null;
  telnet: TelnetFixture | null;
  winrm: WinrmFixture | null;
}
