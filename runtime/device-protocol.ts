// The one way a D.device protocol module (SSH, Telnet, SNMP, WinRM) reaches the host: the
// driver's options go as JSON text, taken now; the host's handler (host/bridges/protocol-table.ts; its contract core/protocol-handler.ts)
// answers a ProtocolAnswer, which the module turns into what the driver's callback expects.
import type { Bridge } from './bridge';
import { optionsJson } from './options-json';
import type { ProtocolAnswer, ProtocolModule } from './protocol';
import { stringify } from './intrinsics';

/**
 * Starts one call of `module` on `target`. `fn` names the driver's function in errors
 * ("D.device.sendSSHCommand"). `extra` adds fields of the module's own to the options
 * (an SNMP call's operation and OIDs), as JSON text without braces.
 */
export function startProtocol(
  bridge: Bridge,
  target: number,
  module: ProtocolModule,
  options: unknown,
  fn: string,
  onAnswer: (answer: ProtocolAnswer) => void,
  extra?: Record<string, unknown>,
): void {
  let json = optionsJson(options ?? {}, fn);
  if (extra) {
    const more = stringify(extra) as string;
    // Both are JSON objects: the module's fields go last and win over the driver's.
    json = json === '{}' ? more : more === '{}' ? json : json.slice(0, -1) + ',' + more.slice(1);
  }
  bridge.start('proto', `"target":${target},"module":"${module}","options":${json}`, (answer) => onAnswer(answer as ProtocolAnswer));
}
