// table.addMetrics(id, cells) (issue 36): a row from cells { value, metadata? }, as newer collector
// sandboxes take it (the public hp_poly_lens_monitoring driver). insertRecord's rules for the id,
// the cell count and the row bound; D.createMetric's for the metadata; the metadata kept in the
// run's result, the store and the driverbox API's device tables; the host's own check of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { driverboxApiRoutes, type DeviceTable } from '../../host/api/driverbox/runs-routes.js';
import { createMonitoringApi } from '../../host/api/monitoring/server.js';
import { createAgentRecord } from '../../host/store/fleet/agents.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { writeRunResult } from '../../host/store/runs/report-run.js';
import { checkRunEnd } from '../../host/engine/isolate/check-report.js';
import type { Store } from '../../host/store/store.js';
import { runSource, useHost } from '../helpers/host.js';
import { openTestStore } from '../helpers/store.js';

const host = useHost();

function runBody(body: string, limits?: Record<string, number>) {
  return runSource(host, `function get_status() {\n${body}\n}`, limits ? { limits } : {});
}

const HEADERS = `[{ label: 'Name' }, { label: 'Link' }]`;
const URL = 'https://lens.example.com/manage/inventory/details/00e0db123456?tenantid=t1';

async function expectThrown(body: string, message: string | RegExp) {
  const result = await runBody(body);
  expect(result.status).toBe('failure');
  expect(result.errorType).toBe('GENERIC_ERROR');
  if (typeof message === 'string') expect(result.message).toContain(message);
  else expect(result.message).toMatch(message);
  return result;
}

describe('table.addMetrics', () => {
  it('makes rows from cells as the public driver calls it; cell metadata is reported beside the rows', async () => {
    const result = await runBody(`
      var t = D.createTable('All Devices', [{ label: 'Name' }, { label: 'Connected', valueType: D.valueType.BOOLEAN }, { label: 'Poly Link' }]);
      t.addMetrics('d1', [{ value: 'camera one', metadata: {} }, { value: true }, { value: '${URL}', metadata: { url: '${URL}' } }]);
      t.addMetrics('d2', [{ value: 'camera two', metadata: {} }, { value: false, metadata: null }, { value: '', metadata: {} }]);
      t.insertRecord('d3', ['plain', 1, null]);
      D.success(t);`);
    expect(result.status).toBe('success');
    expect(result.warnings).toEqual([]);
    expect(result.tables[0]!.rows).toEqual([
      ['d1', 'camera one', 'true', URL],
      ['d2', 'camera two', 'false', ''],
      ['d3', 'plain', '1', null],
    ]);
    expect(result.tables[0]!.cellMetadata).toEqual([[null, null, { url: URL }], null, null]);
  });

  it('a table whose cells carry no metadata has no cellMetadata field (the shape tables always had)', async () => {
    const result = await runBody(`var t = D.createTable('T', ${HEADERS}); t.addMetrics('r', [{ value: 'a', metadata: {} }, { value: 2 }]); D.success(t);`);
    expect(result.tables).toEqual([
      { label: 'T', columnHeaders: [{ label: 'Name', unit: null, valueType: 'STRING' }, { label: 'Link', unit: null, valueType: 'STRING' }], rows: [['r', 'a', '2']] },
    ]);
  });

  it('keeps metadata values as text, leaves out null ones, and getResult hands out a copy', async () => {
    const result = await runBody(`
      var t = D.createTable('T', ${HEADERS});
      t.addMetrics('r', [{ value: 'a', metadata: { rank: 3, on: true, none: null } }, { value: 'b', metadata: { url: 'https://x.example' } }]);
      t.getResult().cellMetadata[0][1].url = 'javascript:alert(1)';
      D.success(t);`);
    expect(result.tables[0]!.cellMetadata).toEqual([[{ rank: '3', on: 'true' }, { url: 'https://x.example' }]]);
  });

  it('throws on a wrong cell count, naming the record, the table and the column count', async () => {
    await expectThrown(`var t = D.createTable('T', ${HEADERS}); t.addMetrics('r1', [{ value: 'a' }]); D.success(t);`, 'RangeError: Record "r1" in table "T" has 1 cells; the table has 2 columns');
    await expectThrown(`var t = D.createTable('T', ${HEADERS}); t.addMetrics('r1', 'a'); D.success(t);`, 'Record "r1" in table "T" has string cells; the table has 2 columns');
  });

  it.each([
    ['a number', `[{ value: 'a' }, 7]`, 'a number'],
    ['null', `[null, { value: 'b' }]`, 'null'],
    ['an array', `[{ value: 'a' }, ['b']]`, 'an array'],
    ['a string', `['a', { value: 'b' }]`, 'a string'],
  ])('throws on a cell that is %s, naming the cell and its column', async (_what, cells, got) => {
    const position = cells.startsWith(`[{`) ? 1 : 0;
    const column = position === 1 ? 'Link' : 'Name';
    const type = got === 'a number' ? 'number' : got === 'a string' ? 'string' : got;
    await expectThrown(
      `var t = D.createTable('T', ${HEADERS}); t.addMetrics('r1', ${cells}); D.success(t);`,
      `TypeError: table "T", record "r1", cell ${position} (column "${column}"): a cell must be an object { value, metadata? } (got ${type})`,
    );
  });

  it('follows insertRecord for the id: 1-50 characters, strings only, no duplicates', async () => {
    await expectThrown(`var t = D.createTable('T', ${HEADERS}); t.addMetrics('', [{ value: 1 }, { value: 2 }]); D.success(t);`, 'Invalid record id "" in table "T"');
    await expectThrown(`var t = D.createTable('T', ${HEADERS}); t.addMetrics(5, [{ value: 1 }, { value: 2 }]); D.success(t);`, 'Invalid record id 5 in table "T"');
    await expectThrown(`var t = D.createTable('T', ${HEADERS}); t.addMetrics('${'i'.repeat(51)}', [{ value: 1 }, { value: 2 }]); D.success(t);`, 'a string of 1 to 50 characters is required');
    await expectThrown(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord('r1', [1, 2]); t.addMetrics('r1', [{ value: 1 }, { value: 2 }]); D.success(t);`,
      'RangeError: Duplicate record id "r1" in table "T"',
    );
  });

  it('counts against the row bound (maxTableRows) with insertRecord', async () => {
    const result = await runBody(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord('a', [1, 2]); t.addMetrics('b', [{ value: 1 }, { value: 2 }]);` +
        ` try { t.addMetrics('c', [{ value: 1 }, { value: 2, metadata: { url: 'https://x.example' } }]); } catch (e) { console.log(String(e)); } D.success(t);`,
      { maxTableRows: 2 },
    );
    expect(result.status).toBe('success');
    expect(result.logs.map((l) => l.message)).toEqual(['RangeError: Table "T" is full: at most 2 records per table']);
    expect(result.tables[0]!.rows).toEqual([['a', '1', '2'], ['b', '1', '2']]);
    expect(result.tables[0]!.cellMetadata).toBeUndefined();
  });

  it.each([
    ['metadata that is not an object', `{ value: 1, metadata: 'https://x' }`, 'metadata must be an object such as { url: "https://…" } (got string)'],
    ['21 metadata keys', `{ value: 1, metadata: ${JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])))} }`, 'metadata has 21 keys; at most 20'],
    ['a metadata text of 2,001 characters', `{ value: 1, metadata: { url: '${'u'.repeat(2001)}' } }`, 'metadata.url is 2001 characters long; at most 2000'],
    ['a metadata key of 51 characters', `{ value: 1, metadata: { ${'k'.repeat(51)}: 'v' } }`, 'a metadata key is 51 characters long; at most 50'],
  ])('throws on %s, by D.createMetric’s rules', async (_what, cell, message) => {
    await expectThrown(`var t = D.createTable('T', ${HEADERS}); t.addMetrics('r1', [{ value: 0 }, ${cell}]); D.success(t);`, `table "T", record "r1", cell 1 (column "Link"): ${message}`);
  });

  it("throws once a table's metadata would pass 262,144 characters; the rows before stay, the one refused is not added", async () => {
    // Each row: two cells of { url: 2,000 characters } = 2 × (3 + 2,000) = 4,006 characters; 65 rows fit, the 66th does not.
    const result = await runBody(`
      var t = D.createTable('T', ${HEADERS}); var u = 'https://x.example/' + new Array(1983).join('p'); var i;
      try { for (i = 0; i < 100; i++) t.addMetrics('r' + i, [{ value: i, metadata: { url: u } }, { value: i, metadata: { url: u } }]); }
      catch (e) { console.log(i + ' ' + String(e)); }
      D.success(t);`);
    expect(result.status).toBe('success');
    expect(result.logs[0]!.message).toBe(
      '65 RangeError: table "T", record "r65": the cells\' metadata (4006 characters) would take the table past its 262144 characters of metadata',
    );
    expect(result.tables[0]!.rows).toHaveLength(65);
    expect(result.tables[0]!.cellMetadata).toHaveLength(65);
  });

  it('upsertRecord over a row addMetrics made drops its metadata, and frees its share of the budget', async () => {
    const result = await runBody(`
      var t = D.createTable('T', ${HEADERS});
      t.addMetrics('r1', [{ value: 'a' }, { value: 'b', metadata: { url: 'https://one.example' } }]);
      t.addMetrics('r2', [{ value: 'c' }, { value: 'd', metadata: { url: 'https://two.example' } }]);
      t.upsertRecord('r1', ['e', 'f']);
      D.success(t);`);
    expect(result.tables[0]!.rows).toEqual([['r1', 'e', 'f'], ['r2', 'c', 'd']]);
    expect(result.tables[0]!.cellMetadata).toEqual([null, [null, { url: 'https://two.example' }]]);
  });
});

describe("the host's check of cell metadata (a report the driver may have forged)", () => {
  const table = (cellMetadata: unknown) => ({
    status: 'success', errorType: null, message: null, variables: [],
    tables: [{ label: 'T', columnHeaders: [{ label: 'c', unit: null, valueType: 'STRING' }], rows: [['r', 'x']], cellMetadata }],
  });
  const limits = { maxVariables: 10, maxTableRows: 10 };

  it('keeps well-formed metadata, rebuilt', () => {
    expect(checkRunEnd(table([[{ url: 'https://x.example' }]]), limits)).toMatchObject({ tables: [{ cellMetadata: [[{ url: 'https://x.example' }]] }] });
  });

  it.each([
    ['one entry per row', [], 'tables[0].cellMetadata has 0 entries; one per row (1) was expected'],
    ['one entry per column', [[null, null]], 'tables[0].cellMetadata[0] has 2 entries; at most 1 are allowed'],
    ['texts only', [[{ url: 5 }]], 'tables[0].cellMetadata[0][0].url must be a string of 0 to 2000 characters (got number)'],
    ['at most 20 keys', [[Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']))]], 'tables[0].cellMetadata[0][0] has 21 keys; at most 20 are allowed'],
    ['texts of at most 2,000 characters', [[{ url: 'u'.repeat(2001) }]], 'tables[0].cellMetadata[0][0].url must be a string of 0 to 2000 characters (got a string of 2001 characters)'],
  ])('refuses a report that breaks %s', (_what, cellMetadata, message) => {
    expect(checkRunEnd(table(cellMetadata), limits)).toBe(message);
  });
});

describe('cell metadata in the store and the driverbox API', () => {
  const KEY = 'add-metrics-key-1';
  let store: Store;
  let app: FastifyInstance;

  beforeAll(async () => {
    store = await openTestStore({ secretKey: 'test-secret' });
    app = await createMonitoringApi({ store, apiKeys: [KEY], extraRoutes: async (root) => void (await root.register(driverboxApiRoutes, { store, apiKeys: [KEY] })) });
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
  });

  it("a run's table keeps its cell metadata in the store, answered as cell_metadata; the next run without any clears it", async () => {
    const agentId = (await createAgentRecord(store, { displayName: 'lab' })).id;
    const deviceId = (await createDevice(store, agentId, { displayName: 'lens', ip: '10.0.0.7' })).id;
    const withLinks = await runBody(`var t = D.createTable('Devices', ${HEADERS}); t.addMetrics('d1', [{ value: 'one' }, { value: 'open', metadata: { url: '${URL}' } }]); D.success(t);`);
    await writeRunResult(store, { agentId, deviceId, driverName: 'lens.js' }, withLinks);
    const read = async () => {
      const response = await app.inject({ method: 'GET', url: `/driverbox-api/v1/agent/${agentId}/device/${deviceId}/table`, headers: { 'x-api-key': KEY } });
      expect(response.statusCode).toBe(200);
      return (response.json() as { tables: DeviceTable[] }).tables;
    };
    expect(await read()).toEqual([expect.objectContaining({ label: 'Devices', rows: [['d1', 'one', 'open']], cell_metadata: [[null, { url: URL }]] })]);
    const plain = await runBody(`var t = D.createTable('Devices', ${HEADERS}); t.insertRecord('d1', ['one', 'open']); D.success(t);`);
    await writeRunResult(store, { agentId, deviceId, driverName: 'lens.js' }, plain);
    const after = await read();
    expect(after[0]!.rows).toEqual([['d1', 'one', 'open']]);
    expect(after[0]).not.toHaveProperty('cell_metadata');
  });
});
