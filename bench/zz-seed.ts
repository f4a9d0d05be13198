import { startPostgres } from '../test/helpers/postgres-server.js';
import { openStore } from '../host/store/store.js';
import { ensureLocalAgent } from '../host/store/agents.js';
import { createDevice } from '../host/store/devices.js';
import { writeRunResult } from '../host/store/report-run.js';
const server = await startPostgres();
process.on('SIGTERM', () => { server.destroy(); process.exit(0); });
const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
let now = weekAgo;
const store = await openStore({ path: server.url, clock: () => now });
const agent = await ensureLocalAgent(store);
const result = (round: number) => ({
  status: 'success', errorType: null, message: null,
  variables: Array.from({ length: 50 }, (_, i) => ({ uid: `metric-${String(i).padStart(3, '0')}`, label: `Metric ${i}`, value: String((round * 31 + i * 7) % 1000), unit: i % 3 === 0 ? '%' : null, valueType: 'NUMBER' })),
  tables: [], logs: [{ level: 'info', message: 'x' }], warnings: [], http: [], action: 'get_status', limitExceeded: null, durationMs: 12,
}) as any;
const devs: number[] = [];
for (let from = 0; from < 10000; from += 500) await store.transaction(async () => { for (let i = from; i < from + 500; i++) { const d = await createDevice(store, agent.id, { displayName: 'dev-' + i, ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }); devs.push(d.id); await writeRunResult(store, { agentId: agent.id, deviceId: d.id }, result(i)); } });
for (let h = 0; h < 48; h++) { now = weekAgo + Math.round(((h + 1) / 49) * 7 * 24 * 3600 * 1000); await store.transaction(async () => { for (const id of devs.slice(0, 100)) await writeRunResult(store, { agentId: agent.id, deviceId: id }, result(h + 1)); }); }
await store.statement('VACUUM ANALYZE').run();
await store.close();
console.log('READY', server.url);
setInterval(() => {}, 1 << 30);
