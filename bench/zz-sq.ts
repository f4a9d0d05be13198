import { openStore } from '../host/store/store.js';
import { ensureLocalAgent } from '../host/store/agents.js';
import { createDevice } from '../host/store/devices.js';
import { writeRunResult } from '../host/store/report-run.js';
import { existsSync } from 'node:fs';
const file = '/tmp/sb/seed.db';
const fresh = !existsSync(file);
const store = await openStore({ path: file });
if (fresh) {
  const agent = await ensureLocalAgent(store);
  const result = (round: number) => ({ status: 'success', errorType: null, message: null,
    variables: Array.from({ length: 50 }, (_, i) => ({ uid: `metric-${String(i).padStart(3, '0')}`, label: `Metric ${i}`, value: String((round * 31 + i * 7) % 1000), unit: i % 3 === 0 ? '%' : null, valueType: 'NUMBER' })),
    tables: [], logs: [], warnings: [], http: [], action: 'get_status', limitExceeded: null, durationMs: 12 }) as any;
  for (let from = 0; from < 10000; from += 500) await store.transaction(async () => { for (let i = from; i < from + 500; i++) { const d = await createDevice(store, agent.id, { displayName: 'dev-' + i, ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }); await writeRunResult(store, { agentId: agent.id, deviceId: d.id }, result(i)); } });
}
const url = process.argv[2];
for (const s of url ? [store, await openStore({ path: url })] : [store]) {
  for (const [name, sql] of [
    ['offset', 'SELECT * FROM variables WHERE agent_id = ? AND device_id IS NOT NULL ORDER BY id ASC LIMIT ? OFFSET ?'],
    ['deferred', 'SELECT * FROM variables WHERE id IN (SELECT id FROM variables WHERE agent_id = ? AND device_id IS NOT NULL ORDER BY id ASC LIMIT ? OFFSET ?) ORDER BY id ASC'],
    ['offset0', 'SELECT * FROM variables WHERE agent_id = ? AND device_id IS NOT NULL ORDER BY id ASC LIMIT ? OFFSET ?'],
    ['deferred0', 'SELECT * FROM variables WHERE id IN (SELECT id FROM variables WHERE agent_id = ? AND device_id IS NOT NULL ORDER BY id ASC LIMIT ? OFFSET ?) ORDER BY id ASC'],
    ['value', 'SELECT * FROM variables WHERE agent_id = ? AND device_id IS NOT NULL ORDER BY value DESC, id DESC LIMIT ? OFFSET ?'],
    ['valuedef', 'SELECT * FROM variables WHERE id IN (SELECT id FROM variables WHERE agent_id = ? AND device_id IS NOT NULL ORDER BY value DESC, id DESC LIMIT ? OFFSET ?) ORDER BY value DESC, id DESC'],
  ] as const) {
    const st = s.statement<unknown[], unknown>(sql);
    const t: number[] = [];
    for (let i = 0; i < 30; i++) { const a = performance.now(); const r = await st.all(1, 100, name.endsWith('0') || name.startsWith('value') ? 0 : 499900); if (r.length !== 100) throw new Error('n'); t.push(performance.now() - a); }
    t.sort((a, b) => a - b);
    console.log(s.dialect, name, 'p50', t[15]!.toFixed(2), 'max', t[29]!.toFixed(2));
  }
}
process.exit(0);
