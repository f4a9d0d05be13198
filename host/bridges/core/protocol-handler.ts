// The contract between RunNetwork and a protocol module's handler (SSH, Telnet, SNMP, WinRM, TFTP):
// what a handler gets from the run (ProtocolContext: where it may connect, the run's clock, abort
// signal, bounds, secrets and transcript) and what it answers. A handler lives in its protocol's
// folder (host/bridges/ssh/, telnet/, snmp/, winrm/, tftp/); it gets the driver's options as plain
// data it must type-check, and answers a ProtocolAnswer. It never opens a socket to anything but
// ctx.endpoint(), and closes what it opened when ctx.signal aborts (the run ended).
import type { ProtocolAnswer as WireAnswer, ProtocolModule } from '../../../runtime/protocol.js';
import type { SnmpSettings } from '../../contract/device.js';
import type { DriverCode } from '../../contract/driver-error-codes.js';
import type { Endpoint, EndpointRefused } from './endpoint.js';

export type { Endpoint, EndpointRefused, ProtocolModule };

/**
 * A handler's answer: what the runtime gets (runtime/protocol.ts's ProtocolAnswer), its error's code
 * one of the registry's (contract/driver-error-codes.ts) or one passed through as the peer named it.
 */
export type ProtocolAnswer = Omit<WireAnswer, 'error'> & { error: (NonNullable<WireAnswer['error']> & { code: DriverCode }) | null };

/** The device (or external host) a call goes to, as the run knows it. */
export interface ProtocolTarget {
  host: string | null;
  ip: string | null;
  username: string | null;
  password: string | null;
  /** The device's SNMP settings (community, version, v3 user); null when none are known. */
  snmp: SnmpSettings | null;
  /** An external device (D.createExternalDevice), not the run's own. */
  external: boolean;
}

/** One exchange in the run's transcript, started by ProtocolContext.exchange. */
export interface ProtocolExchange {
  /**
   * The exchange is over. `response` is the output the driver got (kept, masked, only in a
   * full transcript); bytes are counted on the wire where the module can, else the text's.
   */
  finish(outcome: { error?: { code: DriverCode; message: string } | null; response?: string | null; requestBytes?: number; responseBytes?: number }): void;
}

export interface ProtocolContext {
  readonly target: ProtocolTarget;
  /**
   * Where to connect for `port` on the target: the port map applied, a host name pinned by the
   * run's `resolve` dialled at its address; the IP first unless `useHostname` (the device's
   * host name when it has one). Null when the device has no address; `refused` when the run may
   * not dial that port (a simulated device's port its simulator does not serve: the call fails
   * with that code and message, in its module's error shape). Never connect elsewhere.
   */
  endpoint(port: number, useHostname?: boolean): Endpoint | EndpointRefused | null;
  /** Aborted when the run ends: close every socket and session the call opened. */
  readonly signal: AbortSignal;
  /** What is left of the run's deadline, ms (may be ≤ 0). A call's own timeout is at most this. */
  timeLeftMs(): number;
  /** Counts one connection or session against the run's maxProtocolSessions; false when used up. */
  takeSession(): boolean;
  /** Counts one command or request against the run's maxProtocolCommands; false when used up. */
  takeCommand(): boolean;
  /** Output one call may hold, bytes (RunLimits.maxOutputBytes): past it, answer OUTPUT_TOO_LARGE. */
  readonly maxOutputBytes: number;
  /** A secret the call uses (a password option, a community, a v3 key): masked from now on. */
  addSecret(secret: string | null | undefined): void;
  /** `text` with every secret the run knows masked. */
  mask(text: string): string;
  /**
   * Starts one exchange in the run's transcript: `url` such as ssh://10.0.0.5:22 (as dialled),
   * `request` the command or request as text (masked, kept in a full transcript only).
   */
  exchange(url: string, request: string | null): ProtocolExchange;
  /**
   * The call leaves something open after its answer (D.tftpServer's receiver): the run's end must
   * abort `signal` even when no call is in flight then.
   */
  holdsUntilEnd?(): void;
}

/** Serves one call of a module: never throws, never rejects (RunNetwork turns either into INTERNAL_ERROR). */
export type ProtocolHandler = (ctx: ProtocolContext, options: Record<string, unknown>) => Promise<ProtocolAnswer>;
