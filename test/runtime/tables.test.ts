// D.createTable, insertRecord / upsertRecord, the row bound, and how tables reach RunResult.tables.
import { describe, expect, it } from 'vitest';
import { runSource, useHost } from '../helpers/host.js';

const host = useHost();

function runBody(body: string, limits?: Record<string, number>) {
  return runSource(host, `function get_status() {\n${body}\n}`, limits ? { limits } : {});
}

const x = (n: number, ch = 'x') => ch.repeat(n);
const HEADERS = `[{ label: 'Name' }, { label: 'Speed', unit: 'Mbps', valueType: D.valueType.NUMBER }]`;

async function expectThrown(body: string, message: string) {
  const result = await runBody(body);
  expect(result.status).toBe('failure');
  expect(result.errorType).toBe('GENERIC_ERROR');
  expect(result.message).toContain(message);
  expect(result.tables).toEqual([]);
  return result;
}

describe('D.createTable', () => {
  it('accepts a label of 50 characters', async () => {
    const result = await runBody(`D.success(D.createTable('${x(50, 'T')}', [{ label: 'c' }]));`);
    expect(result.status).toBe('success');
    expect(result.tables).toEqual([{ label: x(50, 'T'), columnHeaders: [{ label: 'c', unit: null, valueType: 'STRING' }], rows: [] }]);
  });

  it('throws on a label of 51 characters', async () => {
    await expectThrown(
      `D.success(D.createTable('${x(51, 'T')}', [{ label: 'c' }]));`,
      `RangeError: Invalid table label: "${x(51, 'T')}" (51 characters); a string of 1 to 50 characters is required`,
    );
  });

  it('throws on an empty or non-string label', async () => {
    await expectThrown(`D.createTable('', [{ label: 'c' }]); D.success();`, 'Invalid table label: "" (0 characters)');
    await expectThrown(`D.createTable(5, [{ label: 'c' }]); D.success();`, 'Invalid table label: 5; a string of 1 to 50 characters is required');
  });

  it('accepts a column label of 30 characters', async () => {
    const result = await runBody(`D.success(D.createTable('T', [{ label: '${x(30, 'c')}' }]));`);
    expect(result.status).toBe('success');
    expect(result.tables[0].columnHeaders).toEqual([{ label: x(30, 'c'), unit: null, valueType: 'STRING' }]);
  });

  it('throws on a column label of 31 characters, naming its position', async () => {
    await expectThrown(
      `D.createTable('T', [{ label: 'ok' }, { label: '${x(31, 'c')}' }]); D.success();`,
      `Invalid column label at position 1: "${x(31, 'c')}" (31 characters); a string of 1 to 30 characters is required`,
    );
  });

  it('throws on a column without a label', async () => {
    await expectThrown(`D.createTable('T', [{ unit: 'C' }]); D.success();`, 'Invalid column label at position 0: undefined');
    await expectThrown(`D.createTable('T', [null]); D.success();`, 'Invalid column label at position 0: undefined');
  });

  it('throws on a column labelled "Id" (reserved for the record id)', async () => {
    await expectThrown(
      `D.createTable('T', [{ label: 'Name' }, { label: 'Id' }]); D.success();`,
      'RangeError: Invalid column label "Id": it is reserved for the record id column',
    );
  });

  it('accepts "id" and "ID" (only "Id" is reserved)', async () => {
    const result = await runBody(`D.success(D.createTable('T', [{ label: 'id' }, { label: 'ID' }]));`);
    expect(result.status).toBe('success');
    expect(result.tables[0].columnHeaders.map((h) => h.label)).toEqual(['id', 'ID']);
  });

  it('accepts a unit of 10 characters', async () => {
    const result = await runBody(`D.success(D.createTable('T', [{ label: 'c', unit: '${x(10, 'u')}' }]));`);
    expect(result.status).toBe('success');
    expect(result.tables[0].columnHeaders[0].unit).toBe(x(10, 'u'));
  });

  it('throws on a unit of 11 characters', async () => {
    await expectThrown(
      `D.createTable('T', [{ label: 'c', unit: '${x(11, 'u')}' }]); D.success();`,
      `Invalid unit of column "c": "${x(11, 'u')}" (11 characters); a string of 1 to 10 characters is required`,
    );
  });

  it('treats an empty unit as none', async () => {
    const result = await runBody(`D.success(D.createTable('T', [{ label: 'c', unit: '' }]));`);
    expect(result.tables[0].columnHeaders[0].unit).toBeNull();
  });

  it('throws on an invalid column valueType', async () => {
    await expectThrown(`D.createTable('T', [{ label: 'c', valueType: 'FLOAT' }]); D.success();`, 'column "c": invalid value type "FLOAT"');
  });

  it.each([
    ['missing', `D.createTable('T')`],
    ['empty', `D.createTable('T', [])`],
    ['not an array', `D.createTable('T', { label: 'c' })`],
  ])('throws when headers are %s', async (_what, call) => {
    await expectThrown(`${call}; D.success();`, 'TypeError: Column headers must be defined: pass an array of { label, unit?, valueType? }');
  });
});

describe('insertRecord', () => {
  it('accepts a record id of 50 characters', async () => {
    const result = await runBody(`var t = D.createTable('T', ${HEADERS}); t.insertRecord('${x(50, 'i')}', ['a', 1]); D.success(t);`);
    expect(result.status).toBe('success');
    expect(result.tables[0].rows).toEqual([[x(50, 'i'), 'a', '1']]);
  });

  it('throws on a record id of 51 characters', async () => {
    await expectThrown(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord('${x(51, 'i')}', ['a', 1]); D.success(t);`,
      `RangeError: Invalid record id "${x(51, 'i')}" in table "T": a string of 1 to 50 characters is required`,
    );
  });

  it('throws on an empty record id', async () => {
    await expectThrown(`var t = D.createTable('T', ${HEADERS}); t.insertRecord('', ['a', 1]); D.success(t);`, 'Invalid record id "" in table "T"');
  });

  it('throws on a non-string record id (numbers are rejected)', async () => {
    await expectThrown(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord(1, ['a', 1]); D.success(t);`,
      'Invalid record id 1 in table "T": a string of 1 to 50 characters is required',
    );
  });

  it('throws when the values count differs from the columns count', async () => {
    await expectThrown(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord('r1', ['a']); D.success(t);`,
      'RangeError: Record "r1" in table "T" has 1 values; the table has 2 columns',
    );
    await expectThrown(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord('r1', ['a', 1, 2]); D.success(t);`,
      'Record "r1" in table "T" has 3 values; the table has 2 columns',
    );
  });

  it('throws when values is not an array', async () => {
    await expectThrown(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord('r1', 'a,1'); D.success(t);`,
      'Record "r1" in table "T" has string values; the table has 2 columns',
    );
  });

  it('throws on a duplicate record id', async () => {
    await expectThrown(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord('r1', ['a', 1]); t.insertRecord('r1', ['b', 2]); D.success(t);`,
      'RangeError: Duplicate record id "r1" in table "T": use upsertRecord to replace a row',
    );
  });

  it('stringifies values; null and undefined become null', async () => {
    const result = await runBody(
      `var t = D.createTable('T', [{ label: 'a' }, { label: 'b' }, { label: 'c' }, { label: 'd' }]);` +
        ` t.insertRecord('r', [1.5, true, null, undefined]); D.success(t);`,
    );
    expect(result.tables[0].rows).toEqual([['r', '1.5', 'true', null, null]]);
  });

  it('a caught error leaves the table as it was', async () => {
    const result = await runBody(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord('r1', ['a', 1]);` +
        ` try { t.insertRecord('r1', ['b', 2]); } catch (e) {} try { t.insertRecord('r2', ['b']); } catch (e) {} D.success(t);`,
    );
    expect(result.status).toBe('success');
    expect(result.tables[0].rows).toEqual([['r1', 'a', '1']]);
  });
});

describe('upsertRecord', () => {
  it('replaces an existing row in place, with a warning, and appends new ids', async () => {
    const result = await runBody(
      `var t = D.createTable('Ports', ${HEADERS});` +
        ` t.insertRecord('p1', ['eth0', 100]); t.insertRecord('p2', ['eth1', 1000]);` +
        ` t.upsertRecord('p1', ['eth0', 10]); t.upsertRecord('p3', ['eth2', 1]); D.success(t);`,
    );
    expect(result.status).toBe('success');
    expect(result.tables[0].rows).toEqual([
      ['p1', 'eth0', '10'],
      ['p2', 'eth1', '1000'],
      ['p3', 'eth2', '1'],
    ]);
    expect(result.warnings).toEqual(['table "Ports": record "p1" exists and was replaced']);
  });

  it('validates like insertRecord', async () => {
    await expectThrown(`var t = D.createTable('T', ${HEADERS}); t.upsertRecord(5, ['a', 1]); D.success(t);`, 'Invalid record id 5 in table "T"');
    await expectThrown(
      `var t = D.createTable('T', ${HEADERS}); t.upsertRecord('r', ['a']); D.success(t);`,
      'Record "r" in table "T" has 1 values; the table has 2 columns',
    );
  });
});

describe('maxTableRows (3)', () => {
  const limits = { maxTableRows: 3 };

  it('accepts exactly the bound', async () => {
    const result = await runBody(`var t = D.createTable('T', [{ label: 'v' }]); for (var i = 0; i < 3; i++) t.insertRecord('r' + i, [i]); D.success(t);`, limits);
    expect(result.status).toBe('success');
    expect(result.tables[0].rows).toEqual([
      ['r0', '0'],
      ['r1', '1'],
      ['r2', '2'],
    ]);
  });

  it('throws on the record past the bound', async () => {
    const result = await runBody(`var t = D.createTable('T', [{ label: 'v' }]); for (var i = 0; i < 4; i++) t.insertRecord('r' + i, [i]); D.success(t);`, limits);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toContain('RangeError: Table "T" is full: at most 3 records per table');
  });

  it('upsert of a new id past the bound throws; replacing an existing row in a full table does not', async () => {
    const replaced = await runBody(
      `var t = D.createTable('T', [{ label: 'v' }]); for (var i = 0; i < 3; i++) t.insertRecord('r' + i, [i]); t.upsertRecord('r1', ['new']); D.success(t);`,
      limits,
    );
    expect(replaced.status).toBe('success');
    expect(replaced.tables[0].rows).toEqual([
      ['r0', '0'],
      ['r1', 'new'],
      ['r2', '2'],
    ]);
    const full = await runBody(
      `var t = D.createTable('T', [{ label: 'v' }]); for (var i = 0; i < 3; i++) t.insertRecord('r' + i, [i]); t.upsertRecord('r3', [3]); D.success(t);`,
      limits,
    );
    expect(full.errorType).toBe('GENERIC_ERROR');
    expect(full.message).toContain('Table "T" is full: at most 3 records per table');
  });

  it('the bound is per table', async () => {
    const result = await runBody(
      `var a = D.createTable('A', [{ label: 'v' }]), b = D.createTable('B', [{ label: 'v' }]);` +
        ` for (var i = 0; i < 3; i++) { a.insertRecord('r' + i, [i]); b.insertRecord('r' + i, [i]); } D.success(a, b);`,
      limits,
    );
    expect(result.status).toBe('success');
    expect(result.tables.map((t) => t.rows.length)).toEqual([3, 3]);
  });
});

describe('tables in the RunResult', () => {
  it('D.success(table) alone reports the table with its full shape and no variables', async () => {
    const result = await runBody(
      `var t = D.createTable('Interfaces', [{ label: 'Name' }, { label: 'Speed', unit: 'Mbps', valueType: D.valueType.NUMBER }, { label: 'Up', valueType: 'BOOLEAN' }]);` +
        ` t.insertRecord('eth0', ['WAN', 1000, true]); t.insertRecord('eth1', ['LAN', 100, false]); D.success(t);`,
    );
    expect(result.status).toBe('success');
    expect(result.variables).toEqual([]);
    expect(result.tables).toEqual([
      {
        label: 'Interfaces',
        columnHeaders: [
          { label: 'Name', unit: null, valueType: 'STRING' },
          { label: 'Speed', unit: 'Mbps', valueType: 'NUMBER' },
          { label: 'Up', unit: null, valueType: 'BOOLEAN' },
        ],
        rows: [
          ['eth0', 'WAN', '1000', 'true'],
          ['eth1', 'LAN', '100', 'false'],
        ],
      },
    ]);
  });

  it('D.success(variables, table) reports both', async () => {
    const result = await runBody(
      `var t = D.createTable('T', ${HEADERS}); t.insertRecord('r1', ['a', 1]);` +
        ` D.success([D.createVariable('up', 'Uptime', 42, 's', D.valueType.NUMBER)], t);`,
    );
    expect(result.status).toBe('success');
    expect(result.variables).toEqual([{ uid: 'up', label: 'Uptime', value: '42', unit: 's', valueType: 'NUMBER' }]);
    expect(result.tables).toEqual([
      {
        label: 'T',
        columnHeaders: [
          { label: 'Name', unit: null, valueType: 'STRING' },
          { label: 'Speed', unit: 'Mbps', valueType: 'NUMBER' },
        ],
        rows: [['r1', 'a', '1']],
      },
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('an empty table is reported with no rows', async () => {
    const result = await runBody(`D.success([], D.createTable('Empty', [{ label: 'c' }]));`);
    expect(result.status).toBe('success');
    expect(result.tables).toEqual([{ label: 'Empty', columnHeaders: [{ label: 'c', unit: null, valueType: 'STRING' }], rows: [] }]);
  });

  it('the table object has isTable and type, and getResult gives the same shape', async () => {
    const result = await runBody(
      `var t = D.createTable('T', [{ label: 'c' }]); t.insertRecord('r', ['v']); var r = t.getResult();` +
        ` D.success([D.createVariable('info', 'L', [t.isTable, t.type, JSON.stringify(r)].join('|'))]);`,
    );
    expect(result.variables[0].value).toBe(
      `true|table|${JSON.stringify({ label: 'T', columnHeaders: [{ label: 'c', unit: null, valueType: 'STRING' }], rows: [['r', 'v']] })}`,
    );
  });

  it('records inserted after D.success are not reported', async () => {
    const result = await runBody(`var t = D.createTable('T', [{ label: 'c' }]); t.insertRecord('r1', ['a']); D.success(t); t.insertRecord('r2', ['b']);`);
    expect(result.tables[0].rows).toEqual([['r1', 'a']]);
  });
});
