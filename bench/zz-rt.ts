import { openStore } from '../host/store/store.js';
const store = await openStore({ path: process.argv[2]! });
const st = store.statement<[number], unknown>('SELECT * FROM agents WHERE id = ?');
const h = store.statement<[number, number, number], unknown>('SELECT timestamp, value FROM variable_history WHERE variable_id = ? AND timestamp >= ? AND timestamp <= ? ORDER BY timestamp, rowid');
for (const [name, f] of [['agents by id', () => st.get(1)], ['history', () => h.all(5, Date.now() - 7 * 86400000, Date.now())]] as const) {
  const t: number[] = [];
  for (let i = 0; i < 500; i++) { const a = performance.now(); await (f as any)(); t.push(performance.now() - a); }
  t.sort((a, b) => a - b);
  console.log(name, 'p50', t[250]!.toFixed(3), 'p99', t[495]!.toFixed(3));
}
await store.close();
