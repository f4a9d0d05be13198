// A device that floods its jar (issue 34, cause 5): every answer sets 150 new cookies, each on a
// path of its own. One run makes --requests such requests with jar: true while a bystander
// device (a trivial driver, one GET) is polled beside it. Printed: the flood run's time per
// request, the host loop's longest stall, and the bystander's run durations.
//
// Run:     node --no-node-snapshot --import tsx bench/http-cookie-flood.ts [--requests N]
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { createHost } from '../host/index.js';
import { intFlag, parseFlags, percentile, runBench } from './lib/common.js';

const FLOOD_DEVICE = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
let round = 0;
const server = http.createServer((req, res) => {
  const r = round++;
  const lines = [];
  for (let i = 0; i < 150; i++) lines.push('c' + r + '_' + i + '=v; Path=/p' + r + '_' + i);
  res.setHeader('set-cookie', lines);
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

const FLOOD_DRIVER = `function get_status() {
  var n = D.getParameter('requests');
  function next(i) {
    if (i === n) return D.success([]);
    D.device.http.get({ url: '/', jar: true }, function (err) {
      if (err) return D.failure(D.errorType.NETWORK_ERROR);
      next(i + 1);
    });
  }
  next(0);
}`;

const BYSTANDER_DRIVER = `function get_status() {
  D.device.http.get('/ok', function (err, res, body) {
    if (err) return D.failure(D.errorType.NETWORK_ERROR);
    D.success([D.createVariable('body', 'Body', body)]);
  });
}`;

async function main(): Promise<number> {
  const { requests } = parseFlags(process.argv.slice(2), { requests: 100 }, { '--requests': intFlag('requests') }, 'http-cookie-flood [--requests N]');
  const device = new Worker(FLOOD_DEVICE, { eval: true });
  const floodPort = await new Promise<number>((resolve) => device.once('message', resolve));
  const healthy: Server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => healthy.listen(0, '127.0.0.1', resolve));
  const healthyPort = (healthy.address() as AddressInfo).port;
  const host = createHost({ threads: 1 });

  // Warm: the sandbox thread and an isolate exist before anything is measured.
  await host.run({ source: BYSTANDER_DRIVER, filename: 'bystander.js', device: { id: 'bystander', ip: '127.0.0.1', portMap: { 80: healthyPort } } });
  let last = performance.now();
  let maxStall = 0;
  const watch = setInterval(() => {
    const now = performance.now();
    maxStall = Math.max(maxStall, now - last - 5);
    last = now;
  }, 5);
  let stop = false;
  const bystander: number[] = [];
  let bystanderFailures = 0;
  const polling = (async () => {
    while (!stop) {
      const r = await host.run({ source: BYSTANDER_DRIVER, filename: 'bystander.js', device: { id: 'bystander', ip: '127.0.0.1', portMap: { 80: healthyPort } }, limits: { timeoutMs: 10_000 } });
      bystander.push(r.durationMs);
      if (r.status !== 'success') bystanderFailures++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = performance.now();
  const flood = await host.run({
    source: FLOOD_DRIVER,
    filename: 'flood.js',
    parameters: { requests },
    device: { id: 'flood', ip: '127.0.0.1', portMap: { 80: floodPort } },
    limits: { timeoutMs: 600_000, cpuTimeMs: 600_000, maxHttpRequests: requests + 1 },
  });
  const ms = performance.now() - started;
  stop = true;
  await polling;
  clearInterval(watch);
  const sorted = [...bystander].sort((a, b) => a - b);
  console.log(`flood run: ${flood.status}${flood.errorType ? ` ${flood.errorType}` : ''}, ${requests} requests of 150 new cookies on new paths in ${Math.round(ms)} ms (${(ms / requests).toFixed(1)} ms a request)`);
  console.log(`host loop: longest stall ${Math.round(maxStall)} ms`);
  console.log(`bystander: ${bystander.length} runs, ${bystanderFailures} failed, duration p50 ${percentile(sorted, 50).toFixed(1)} ms, max ${Math.max(...sorted).toFixed(1)} ms`);
  await host.close();
  healthy.close();
  await device.terminate();
  return 0;
}

runBench('http-cookie-flood', main);
