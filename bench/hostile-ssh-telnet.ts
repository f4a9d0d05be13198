// What a hostile SSH or Telnet device costs the host's event loop (issue 34): one run against a
// peer in a worker thread (test/hostile-peers/*-peer.mjs, so the peer's own CPU is not the
// host loop's), beside a bystander HTTP device polled by a trivial driver.
//
// Per scenario it prints the run's outcome and duration, the host loop's busy time during the
// run (event-loop utilisation of the main thread: the host's own work on the device's data), the
// longest loop stall (a 5 ms timer's lateness), and the bystander's runs, slowest and failures.
//
// Run:   node --no-node-snapshot --import tsx bench/hostile-ssh-telnet.ts [scenario…]
// Scenarios: ssh-bytes ssh-bytes-regex ssh-bytes-exec ssh-regex telnet-regex telnet-regex-slow (default: all)
//
// Measured on this 2-core machine (shared, busy), before → after issue 34's SSH / Telnet fixes:
//   ssh-bytes (400,000 one-byte packets, shell): TIMEOUT_ERROR at 36.2 s (its 30 s deadline not
//     kept), host loop busy 35.5 s, longest stall 11.2 s, bystander slowest 14.6 s and 2 failed →
//     success in 3.0-4.0 s, loop busy 1.0-1.3 s (ssh2's own per-packet work), stall 60-120 ms, 0 failed
//   ssh-bytes-exec: success 4.8 s, busy 1.6 s, stall 282 ms → success 3.1 s, busy 0.8 s, stall 22 ms
//   ssh-regex (one 41-char line, /^([\w.-]+)+[>#]\s*$/m): no result at all (killed after 45 s;
//     the process wedged) → PATTERN_BUDGET_EXCEEDED in 1.1 s, loop busy 40 ms, stall 41 ms
//   telnet-regex: one 200 ms test on the loop (stall 205 ms, bystander 81 ms) → budget error in
//     1.0 s, loop busy 49 ms, stall 41 ms, bystander slowest 8 ms
//   telnet-regex-slow (a line costing each test some ms every 5 ms): loop busy 595 ms, stall
//     207 ms, bystander median 48 ms / slowest 444 ms → loop busy 139 ms, stall 23 ms,
//     bystander median 11 ms / slowest 29 ms
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createHost, type Host } from '../host/index.js';
import { startPeerWorker } from '../test/hostile-peers/peer-worker.js';

const sshProbe = (fn: string, options: object) => `function get_status() {
  D.device.${fn}(${JSON.stringify(options)}, function (out, err) {
    var text = out === null ? '' : Array.isArray(out) ? out.join('') : out;
    D.success([D.createVariable('len', 'Len', String(text.length)), D.createVariable('err', 'Err', err ? String(err.message).slice(0, 200) : 'none')]);
  });
}`;
const telnetProbe = (options: string) => `function get_status() {
  D.device.sendTelnetCommand(${options}, function (out, err) {
    D.success([D.createVariable('len', 'Len', String(out.length)), D.createVariable('err', 'Err', err === '' ? 'none' : String(err.message).slice(0, 200))]);
  });
}`;
const BACKTRACKING = `{ regexp: '^([\\\\w.-]+)+[>#]\\\\s*$', flags: 'm' }`;

const scenarios: Record<string, { peer: 'ssh' | 'telnet'; behaviour: string; source: string; timeoutMs: number }> = {
  'ssh-bytes': { peer: 'ssh', behaviour: 'bytes', source: sshProbe('sendSSHCommands', { commands: ['show all'], inter_command_timeout_ms: 50, global_timeout_ms: 25_000 }), timeoutMs: 30_000 },
  'ssh-bytes-regex': { peer: 'ssh', behaviour: 'bytes', source: sshProbe('sendSSHCommands', { commands: ['show all'], inter_command_timeout_ms: 50, prompt: 'never', prompt_regex: '^sw#\\s*$', prompt_regex_flags: 'm', global_timeout_ms: 25_000 }), timeoutMs: 30_000 },
  'ssh-bytes-exec': { peer: 'ssh', behaviour: 'bytes', source: sshProbe('sendSSHCommand', { command: 'cat big', timeout: 25_000 }), timeoutMs: 30_000 },
  'ssh-regex': { peer: 'ssh', behaviour: 'regex', source: sshProbe('sendSSHCommands', { commands: ['show all'], inter_command_timeout_ms: 50, prompt: 'never', prompt_regex: '^([\\w.-]+)+[>#]\\s*$', prompt_regex_flags: 'm' }), timeoutMs: 10_000 },
  'telnet-regex': { peer: 'telnet', behaviour: 'regex', source: telnetProbe(`{ command: 'x', shellPrompt: ${BACKTRACKING}, timeout: 8000 }`), timeoutMs: 10_000 },
  'telnet-regex-slow': { peer: 'telnet', behaviour: 'regex-slow', source: telnetProbe(`{ command: 'x', shellPrompt: ${BACKTRACKING}, timeout: 8000 }`), timeoutMs: 10_000 },
};

async function bystander(host: Host) {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let stopped = false;
  const durations: number[] = [];
  let failures = 0;
  const loop = (async () => {
    while (!stopped) {
      const r = await host.run({
        filename: 'bystander.js',
        source: `function get_status() { D.device.http.get('/ok', function (e, r, b) { if (e) return D.failure(D.errorType.NETWORK_ERROR); D.success([D.createVariable('b', 'B', b)]); }); }`,
        device: { id: 'bystander', ip: '127.0.0.1', portMap: { 80: port } },
        limits: { timeoutMs: 3000 },
      });
      durations.push(r.durationMs);
      if (r.status !== 'success') failures++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    server.closeAllConnections();
    server.close();
    durations.sort((a, b) => a - b);
    return { runs: durations.length, median: Math.round(durations[Math.floor(durations.length / 2)] ?? 0), slowest: Math.round(durations.at(-1) ?? 0), failures };
  };
}

const host = createHost();
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(scenarios);
for (const name of names) {
  const s = scenarios[name];
  if (!s) throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(' ')}`);
  const peer = await startPeerWorker(new URL(`../test/hostile-peers/${s.peer}-peer.mjs`, import.meta.url), s.behaviour);
  // Warm: the sandbox thread and the modules loaded before anything is measured.
  await host.run({ filename: 'warm.js', source: 'function get_status() { D.success([]); }' });
  const stopBystander = await bystander(host);
  let last = performance.now();
  let stall = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last - 5);
    last = now;
  }, 5);
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  const result = await host.run({ filename: 'hostile.js', source: s.source, device: { id: name, ip: '127.0.0.1', portMap: { 22: peer.port, 23: peer.port }, username: 'u', password: 'p' }, limits: { timeoutMs: s.timeoutMs } });
  const wall = performance.now() - started;
  const busy = performance.eventLoopUtilization(elu);
  clearInterval(tick);
  const by = await stopBystander();
  await peer.stop();
  const v = (uid: string) => result.variables.find((x) => x.uid === uid)?.value;
  console.log(
    `${name.padEnd(18)} ${result.status}${result.errorType ? ` ${result.errorType}` : ''} in ${Math.round(wall)} ms (run timeout ${s.timeoutMs}) | output ${v('len') ?? '-'} chars, error: ${v('err') ?? result.message ?? '-'}\n` +
      `${''.padEnd(18)} host loop busy ${Math.round(busy.active)} ms, longest stall ${Math.round(stall)} ms | bystander: ${by.runs} runs, median ${by.median} ms, slowest ${by.slowest} ms, ${by.failures} failed`,
  );
}
await host.close();
