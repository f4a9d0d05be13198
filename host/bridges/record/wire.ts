// Where a run's exchanges actually go. A normal run talks to the device (undici for HTTP,
// node:tls for certificate reads); a recording run does the same and keeps a copy; a replay
// run answers from a recording and never opens a socket. RunNetwork picks one wire per run,
// so a run without record or replay pays nothing for either.
import type { ProtocolAnswer, ProtocolModule } from '../../../runtime/protocol.js';
import type { Hop, HopResponse } from '../http/send.js';
import { sendHop } from '../http/send.js';
import type { RunTarget } from '../core/target.js';
import { readCertificate, type TlsAnswer } from '../tls/index.js';
import type { TrustStore } from '../tls/trust.js';

export interface NetworkWire {
  /**
   * One HTTP hop. `secrets` are the passwords the run knows (device, external devices) and its
   * parameters' secrets: the replay wire needs them to redact a request the way the recording
   * did before matching it.
   */
  send(hop: Hop, secrets: ReadonlyArray<string | null>): Promise<HopResponse>;
  /** getTLSCertificate's answer for the target and the driver's options. */
  readCertificate(target: RunTarget, options: Record<string, unknown>, timeoutMs: number, signal: AbortSignal, trust: TrustStore): Promise<TlsAnswer>;
  /**
   * One call of a protocol module (SSH, Telnet, SNMP, WinRM) on `url` (its scheme, host and
   * port as dialled), with the driver's options: `perform` is the live call. A recorder keeps
   * the answer; a replayer answers from the recording without calling `perform`. `secrets` as
   * for send: the run's passwords and parameters' secrets.
   */
  protocol(
    module: ProtocolModule,
    url: string,
    options: Record<string, unknown>,
    perform: () => Promise<ProtocolAnswer>,
    signal: AbortSignal,
    secrets?: ReadonlyArray<string | null>,
  ): Promise<ProtocolAnswer>;
}

export const liveWire: NetworkWire = { send: sendHop, readCertificate, protocol: (_module, _url, _options, perform) => perform() };
