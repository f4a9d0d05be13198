// The recording file: what one driver run exchanged with its device, as versioned JSON that
// a person can read (docs/reference/record-replay.md). Secrets are redacted before anything is written.
import type { ProtocolAnswer, ProtocolModule } from '../../runtime/protocol.js';

/**
 * The version this driverbox writes and reads; another version is refused, never guessed at.
 * Still 1 with the protocol kinds (ssh, sshShell, telnet, snmp, winrm): a recording without them
 * is read as before, and a reader that predates them refuses one that has them, naming the
 * exchange's unknown kind (load.ts checks every kind), rather than replaying half of it.
 */
export const RECORDING_VERSION = 1;

/** A body: text when it is UTF-8 text, else its bytes in base64. */
export type RecordedBody = { text: string } | { base64: string };

export interface RecordedDevice {
  /** The address the run used: replay builds its urls on it. */
  ip: string | null;
  host: string | null;
  /** Kept (it is not a secret) so that `${username}` urls and login bodies match at replay. */
  username: string | null;
  /** Whether the device had a password: replay then gives the driver a stand-in (see replay). */
  hasPassword: boolean;
  portMap: Record<string, number>;
}

/** One HTTP hop: a request and what came of it. */
export interface RecordedHttp {
  kind: 'http';
  method: string;
  /** As dialled (port map applied), redacted. */
  url: string;
  request: { headers: Record<string, string>; body: RecordedBody | null };
  /** The device answered (any status)… */
  response?: {
    status: number;
    headers: Record<string, string | string[]>;
    body: RecordedBody | null;
    /** Bytes as received (before decompression), for the transcript. */
    wireBytes: number;
  };
  /** …or the hop failed (ECONNREFUSED, ETIMEDOUT, a TLS code…)… */
  error?: { code: string; message: string };
  /** …or the run ended before either: replay leaves it unanswered too. */
  unanswered?: true;
}

/** One getTLSCertificate: the host and port it read from, and the answer the driver got. */
export interface RecordedTls {
  kind: 'tls';
  /** tls://host:port, the port as the driver asked for it. */
  url: string;
  answer?: { error: { code: string; message: string } | null; certificate: Record<string, unknown> | null };
  unanswered?: true;
}

/** The exchange kinds of the protocol modules: the module's name, as in ProtocolCall. */
export const PROTOCOL_KINDS: readonly ProtocolModule[] = ['ssh', 'sshShell', 'telnet', 'snmp', 'winrm', 'tftp'];

/** One call of a protocol module (D.device.sendSSHCommand, createSNMPSession().get…): the driver's options and the answer. */
export interface RecordedProtocol {
  kind: ProtocolModule;
  /** module://host as RunNetwork names the call (the recorded device's address). */
  url: string;
  /** The driver's options (with the module's own fields, such as an SNMP operation), secrets redacted. */
  request: Record<string, unknown>;
  /** The answer the runtime module got (error or result), redacted… */
  answer?: ProtocolAnswer;
  /** …or the run ended before it: replay leaves it unanswered too. */
  unanswered?: true;
}

export type RecordedExchange = RecordedHttp | RecordedTls | RecordedProtocol;

export interface RecordingFile {
  recording: typeof RECORDING_VERSION;
  /** The driver's file name (no directory), the action and when the run started (ISO 8601). */
  driver: string;
  action: string;
  recordedAt: string;
  /** How the run ended, for whoever reads the file; replay does not depend on it. */
  outcome: { status: 'success' | 'failure'; errorType: string | null };
  device: RecordedDevice;
  /**
   * Host names the run pinned (RunRequest.resolve): the recorded URLs were dialled through them,
   * so a replay pins them again. Optional: absent when the run pinned none.
   */
  resolve?: Record<string, { ip: string; portMap: Record<string, number> }>;
  /**
   * Hosts other than the device that the run followed a redirect to (externalHosts, resolve):
   * a replay follows those redirects again. Optional: absent when it followed none.
   */
  redirectHosts?: string[];
  /** In the order they were sent. */
  exchanges: RecordedExchange[];
}

// ignoreBOM keeps a leading BOM in the text, so that the bytes come back as they were.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
// Control characters other than tab, newline, carriage return and form feed mark a binary body.
const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

/** The body's text when it is UTF-8 text (so it can be stored as is), else null. */
export function bodyText(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return null;
  }
  return CONTROL.test(text) ? null : text;
}

export function bodyBytes(body: RecordedBody | null): Buffer {
  if (body === null) return Buffer.alloc(0);
  return 'text' in body ? Buffer.from(body.text, 'utf8') : Buffer.from(body.base64, 'base64');
}
