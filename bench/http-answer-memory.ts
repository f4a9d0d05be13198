// What a run's HTTP answers cost the host process's memory, next to the run's memoryMb (issue 34:
// four runs with memoryMb 16 reading large hex bodies took the host to +538 MB).
//
// A device in a worker thread answers GET /body with --size bytes of one of these bodies:
//   random (bytes 0-255), ctl (0x01 bytes: JSON escapes each as \u0001, six characters),
//   json-objects ([{},{},…]: a host that parses it holds an object per three bytes).
// --runs runs at once, each with memoryMb --memory, read it with encoding --encoding
// (hex, base64, utf8, latin1, null (a Buffer), json (json: true)). The process's peak RSS
// (VmHWM, reset through /proc/self/clear_refs before the runs) is printed against the RSS
// before, with each run's status and error.
//
// Run:     node --no-node-snapshot --import tsx bench/http-answer-memory.ts
//          node --no-node-snapshot --import tsx bench/http-answer-memory.ts --encoding json --body json-objects
// Options: --runs N (4), --memory MB (16), --size MB (16), --encoding E (hex), --body B (random),
//          --max-response-mb MB (the run's maxResponseBytes; default: the default limit)
import { readFileSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { createHost } from '../host/index.js';
import { intFlag, parseFlags, runBench, usage } from './lib/common.js';

interface Options {
  runs: number;
  memory: number;
  size: number;
  encoding: string;
  body: string;
  maxResponseMb: number | null;
}

const DEVICE_SOURCE = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const size = workerData.size;
let body;
if (workerData.body === 'ctl') body = Buffer.alloc(size, 1);
else if (workerData.body === 'json-objects') {
  const n = Math.floor((size - 2) / 3);
  body = Buffer.from('[' + '{},'.repeat(n - 1) + '{}' + ' '.repeat(size - 2 - 3 * n + 1) + ']');
} else {
  body = Buffer.alloc(size);
  for (let i = 0; i < size; i++) body[i] = (i * 2654435761) >>> 24;
}
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': workerData.body === 'json-objects' ? 'application/json' : 'application/octet-stream', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

const MB = 1024 * 1024;

function status(field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : NaN;
}

function driverFor(encoding: string): string {
  const option = encoding === 'json' ? 'json: true' : `encoding: ${encoding === 'null' ? 'null' : JSON.stringify(encoding)}`;
  return `function get_status() {
    D.device.http.get({ url: '/body', ${option} }, function (err, res, body) {
      var got = err ? 'ERR ' + err.code + ': ' + err.message : 'length ' + (typeof body === 'string' || Buffer.isBuffer(body) ? body.length : JSON.stringify(body).length);
      D.success([D.createVariable('got', 'Got', got.slice(0, 200))]);
    });
  }`;
}

async function main(): Promise<number> {
  const options = parseFlags<Options>(
    process.argv.slice(2),
    { runs: 4, memory: 16, size: 16, encoding: 'hex', body: 'random', maxResponseMb: null },
    {
      '--runs': intFlag('runs'),
      '--memory': intFlag('memory'),
      '--size': (o, v) => void (o.size = Number(v() ?? usage('--size needs a number of MB'))),
      '--encoding': (o, v) => void (o.encoding = v() ?? usage('--encoding needs a value')),
      '--body': (o, v) => void (o.body = v() ?? usage('--body needs a value')),
      '--max-response-mb': (o, v) => void (o.maxResponseMb = Number(v() ?? usage('--max-response-mb needs a number'))),
    },
    'http-answer-memory [--runs N] [--memory MB] [--size MB] [--encoding E] [--body random|ctl|json-objects] [--max-response-mb MB]',
  );
  const device = new Worker(DEVICE_SOURCE, { eval: true, workerData: { size: Math.round(options.size * MB), body: options.body } });
  const port = await new Promise<number>((resolve) => device.once('message', resolve));
  const host = createHost({ threads: 1 });
  const source = driverFor(options.encoding);
  const run = () =>
    host.run({
      source,
      filename: 'driver.js',
      device: { ip: '127.0.0.1', portMap: { 80: port } },
      limits: { memoryMb: options.memory, timeoutMs: 60_000, ...(options.maxResponseMb ? { maxResponseBytes: Math.round(options.maxResponseMb * MB) } : {}) },
    });
  // A warm-up run with a small limit: the sandbox thread and its isolate exist before the baseline.
  await host.run({ source: 'function get_status() { D.success([]); }', filename: 'warm.js' });
  (globalThis as { gc?: () => void }).gc?.();
  const before = status('VmRSS');
  writeFileSync('/proc/self/clear_refs', '5'); // VmHWM := VmRSS
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: options.runs }, run));
  const ms = performance.now() - started;
  const peak = status('VmHWM');
  console.log(`${options.runs} runs at once, memoryMb ${options.memory}, ${options.size} MB ${options.body} body, encoding ${options.encoding}`);
  for (const r of results) console.log(`  ${r.status}${r.errorType ? ` ${r.errorType}` : ''} ${r.message ?? r.variables.map((v) => v.value).join(' ')}`.slice(0, 240));
  console.log(`host RSS before ${Math.round(before / MB)} MB, peak ${Math.round(peak / MB)} MB: +${Math.round((peak - before) / MB)} MB (${((peak - before) / (options.runs * options.memory * MB)).toFixed(1)}× the runs' memoryMb), ${Math.round(ms)} ms`);
  await host.close();
  await device.terminate();
  return 0;
}

runBench('http-answer-memory', main);
