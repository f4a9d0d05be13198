// D.createVariable and D.device.createVariable: identity checks throw inside the driver,
// over-long text is cut with a warning, values are stringified, D.success de-duplicates
// and enforces the maxVariables limit.
import { describe, expect, it } from 'vitest';
import { runSource, useHost } from '../helpers/host.js';

const host = useHost();

/** Runs a get_status whose body is `body`, then D.success(vars) where `vars` is what the body left. */
function runBody(body: string, limits?: Record<string, number>) {
  return runSource(host, `function get_status() {\n${body}\n}`, limits ? { limits } : {});
}

const x = (n: number, ch = 'x') => ch.repeat(n);

describe.each(['D.createVariable', 'D.device.createVariable'])('%s', (create) => {
  describe('uid', () => {
    it.each([1, 2, 49, 50])('accepts a uid of %i characters', async (n) => {
      const uid = x(n, 'u');
      const result = await runBody(`D.success([${create}('${uid}', 'L', 'v')]);`);
      expect(result.status).toBe('success');
      expect(result.errorType).toBeNull();
      expect(result.variables).toEqual([{ uid, label: 'L', value: 'v', unit: null, valueType: 'STRING' }]);
      expect(result.warnings).toEqual([]);
    });

    it('rejects an empty uid: the driver sees a thrown error naming the uid', async () => {
      const result = await runBody(`D.success([${create}('', 'L', 'v')]);`);
      expect(result.status).toBe('failure');
      expect(result.errorType).toBe('GENERIC_ERROR');
      expect(result.message).toContain('RangeError: Invalid variable uid: "" is 0 characters long (1 to 50 allowed)');
      expect(result.variables).toEqual([]);
    });

    it('rejects a uid of 51 characters, naming it', async () => {
      const uid = x(51, 'u');
      const result = await runBody(`D.success([${create}('${uid}', 'L', 'v')]);`);
      expect(result.status).toBe('failure');
      expect(result.errorType).toBe('GENERIC_ERROR');
      expect(result.message).toContain(`Invalid variable uid: "${uid}" is 51 characters long (1 to 50 allowed)`);
    });

    it('lets the driver catch the error and go on', async () => {
      const result = await runBody(
        `var msg; try { ${create}('${x(51)}', 'L', 'v'); } catch (e) { msg = e.message; }\n` +
          `D.success([${create}('caught', 'L', msg)]);`,
      );
      expect(result.status).toBe('success');
      expect(result.variables[0].value).toBe(`Invalid variable uid: "${x(51)}" is 51 characters long (1 to 50 allowed)`);
    });

    it('rejects a missing uid', async () => {
      const result = await runBody(`D.success([${create}(undefined, 'L', 'v')]);`);
      expect(result.errorType).toBe('GENERIC_ERROR');
      expect(result.message).toContain('TypeError: Invalid variable uid: undefined');
    });

    it('turns a numeric uid into a string', async () => {
      const result = await runBody(`D.success([${create}(7, 'L', 'v')]);`);
      expect(result.status).toBe('success');
      expect(result.variables[0].uid).toBe('7');
    });

    it.each(['table', 'column', 'history', 'a/table', 'history/x', 'a/column/b'])('rejects the reserved uid %s', async (uid) => {
      const result = await runBody(`D.success([${create}('${uid}', 'L', 'v')]);`);
      expect(result.status).toBe('failure');
      expect(result.errorType).toBe('GENERIC_ERROR');
      const word = uid.split('/').find((s) => ['table', 'column', 'history'].includes(s));
      expect(result.message).toContain(`Invalid variable uid: "${uid}" uses the reserved word "${word}"`);
    });

    it.each(['mytable', 'tables', 'column_1', 'a/histories', 'Table'])('accepts %s (not a reserved segment)', async (uid) => {
      const result = await runBody(`D.success([${create}('${uid}', 'L', 'v')]);`);
      expect(result.status).toBe('success');
      expect(result.variables.map((v) => v.uid)).toEqual([uid]);
    });
  });

  describe('label, value and unit bounds', () => {
    it('keeps a label of 100 characters without a warning', async () => {
      const result = await runBody(`D.success([${create}('a', '${x(100, 'l')}', 'v')]);`);
      expect(result.variables[0].label).toBe(x(100, 'l'));
      expect(result.warnings).toEqual([]);
    });

    it('cuts a label of 101 characters to 100, with a warning', async () => {
      const result = await runBody(`D.success([${create}('a', '${x(100, 'l')}Z', 'v')]);`);
      expect(result.status).toBe('success');
      expect(result.variables[0].label).toBe(x(100, 'l'));
      expect(result.warnings).toEqual(['label of variable "a" is 101 characters long; cut to the limit of 100']);
    });

    it('uses the uid as label when the label is missing', async () => {
      const result = await runBody(`D.success([${create}('a', undefined, 'v')]);`);
      expect(result.variables[0].label).toBe('a');
    });

    it('keeps a value of 500 characters without a warning', async () => {
      const result = await runBody(`D.success([${create}('a', 'L', '${x(500, 'v')}')]);`);
      expect(result.variables[0].value).toBe(x(500, 'v'));
      expect(result.warnings).toEqual([]);
    });

    it('cuts a value of 501 characters to 500, with a warning', async () => {
      const result = await runBody(`D.success([${create}('a', 'L', '${x(500, 'v')}Z')]);`);
      expect(result.status).toBe('success');
      expect(result.variables[0].value).toBe(x(500, 'v'));
      expect(result.warnings).toEqual(['value of variable "a" is 501 characters long; cut to the limit of 500']);
    });

    it('keeps a unit of 10 characters without a warning', async () => {
      const result = await runBody(`D.success([${create}('a', 'L', 'v', '${x(10, 'm')}')]);`);
      expect(result.variables[0].unit).toBe(x(10, 'm'));
      expect(result.warnings).toEqual([]);
    });

    it('cuts a unit of 11 characters to 10, with a warning', async () => {
      const result = await runBody(`D.success([${create}('a', 'L', 'v', '${x(10, 'm')}Z')]);`);
      expect(result.status).toBe('success');
      expect(result.variables[0].unit).toBe(x(10, 'm'));
      expect(result.warnings).toEqual(['unit of variable "a" is 11 characters long; cut to the limit of 10']);
    });

    it('turns a missing or empty unit into null', async () => {
      const result = await runBody(`D.success([${create}('a', 'L', 'v'), ${create}('b', 'L', 'v', ''), ${create}('c', 'L', 'v', null)]);`);
      expect(result.variables.map((v) => v.unit)).toEqual([null, null, null]);
    });

    it('cuts fields the driver lengthened after creating the variable', async () => {
      const result = await runBody(`var v = ${create}('a', 'L', 'v'); v.value = '${x(600, 'v')}'; D.success([v]);`);
      expect(result.variables[0].value).toBe(x(500, 'v'));
      expect(result.warnings).toEqual(['value of variable "a" is 600 characters long; cut to the limit of 500']);
    });
  });

  describe('value', () => {
    it('stringifies numbers, booleans and objects; null and undefined become null', async () => {
      const result = await runBody(
        `D.success([${create}('n', 'L', 21.5), ${create}('z', 'L', 0), ${create}('b', 'L', true), ` +
          `${create}('nl', 'L', null), ${create}('u', 'L', undefined), ${create}('s', 'L', ''), ${create}('arr', 'L', [1, 2])]);`,
      );
      expect(result.status).toBe('success');
      expect(Object.fromEntries(result.variables.map((v) => [v.uid, v.value]))).toEqual({
        n: '21.5',
        z: '0',
        b: 'true',
        nl: null,
        u: null,
        s: '',
        arr: '1,2',
      });
    });
  });

  describe('valueType', () => {
    it('keeps each D.valueType', async () => {
      const types = ['STRING', 'NUMBER', 'DATETIME', 'RATE', 'MONOTONE_RATE', 'BOOLEAN'];
      const result = await runBody(
        `D.success([${types.map((t) => `${create}('${t.toLowerCase()}', 'L', '1', null, D.valueType.${t})`).join(', ')}]);`,
      );
      expect(result.status).toBe('success');
      expect(result.variables.map((v) => v.valueType)).toEqual(types);
    });

    it('accepts the type name as a plain string', async () => {
      const result = await runBody(`D.success([${create}('a', 'L', '1', null, 'NUMBER')]);`);
      expect(result.variables[0].valueType).toBe('NUMBER');
    });

    it('defaults a missing valueType to STRING', async () => {
      const result = await runBody(`D.success([${create}('a', 'L', '1'), ${create}('b', 'L', '1', 'C')]);`);
      expect(result.variables.map((v) => v.valueType)).toEqual(['STRING', 'STRING']);
    });

    it('throws on an invalid valueType', async () => {
      const result = await runBody(`D.success([${create}('a', 'L', '1', null, 'FLOAT')]);`);
      expect(result.status).toBe('failure');
      expect(result.errorType).toBe('GENERIC_ERROR');
      expect(result.message).toContain('TypeError: variable "a": invalid value type "FLOAT"; use one of D.valueType');
    });

    it('throws on a lower-case type name', async () => {
      const result = await runBody(`D.success([${create}('a', 'L', '1', null, 'number')]);`);
      expect(result.errorType).toBe('GENERIC_ERROR');
      expect(result.message).toContain('invalid value type "number"');
    });
  });
});

describe('D.success with variables', () => {
  it('D.device.createVariable and D.createVariable are the same function', async () => {
    const result = await runBody(`D.success([D.createVariable('same', 'L', String(D.device.createVariable === D.createVariable))]);`);
    expect(result.variables[0].value).toBe('true');
  });

  it('reports every one of duplicate uids, as the official emulator does, with one warning saying the store keeps the last', async () => {
    const result = await runBody(
      `D.success([D.createVariable('a', 'First', '1'), D.createVariable('b', 'B', '2'), D.createVariable('a', 'Second', '3'), D.createVariable('b', 'B', '2')]);`,
    );
    expect(result.status).toBe('success');
    expect(result.variables).toEqual([
      { uid: 'a', label: 'First', value: '1', unit: null, valueType: 'STRING' },
      { uid: 'b', label: 'B', value: '2', unit: null, valueType: 'STRING' },
      { uid: 'a', label: 'Second', value: '3', unit: null, valueType: 'STRING' },
      { uid: 'b', label: 'B', value: '2', unit: null, valueType: 'STRING' },
    ]);
    expect(result.warnings).toEqual([
      'duplicate variable uid "a": reported 2 times, values "1", "3"; all are in the run\'s result, the store keeps the last one ("3")',
      'duplicate variable uid "b": reported 2 times, the same value "2" each time; all are in the run\'s result, the store keeps the last one ("2")',
    ]);
  });

  it('the duplicate warning holds whatever the driver did to Array.prototype', async () => {
    const result = await runBody(
      `Array.prototype.indexOf = function () { return 0; }; Array.prototype.join = function () { return 'x'; }; Array.prototype.slice = function () { return []; };` +
        ` D.success([D.createVariable('a', 'A', '1'), D.createVariable('a', 'A', '2'), D.createVariable('a', 'A', '3'), D.createVariable('a', 'A', '4'), D.createVariable('a', 'A', null)]);`,
    );
    expect(result.variables.map((v) => v.value)).toEqual(['1', '2', '3', '4', null]);
    expect(result.warnings).toEqual([
      'duplicate variable uid "a": reported 5 times, values "1", "2", "3" and 2 more; all are in the run\'s result, the store keeps the last one (null)',
    ]);
  });

  it('leaves out items that are not variables, with a warning', async () => {
    const result = await runBody(`D.success([D.createVariable('a', 'A', '1'), 42, null]);`);
    expect(result.status).toBe('success');
    expect(result.variables.map((v) => v.uid)).toEqual(['a']);
    expect(result.warnings).toEqual([
      'D.success received something that is not a variable (number); it was left out',
      'D.success received something that is not a variable (null); it was left out',
    ]);
  });

  it('keeps the order the driver gave', async () => {
    const result = await runBody(`D.success(['c', 'a', 'b'].map(function (u) { return D.createVariable(u, u, u); }));`);
    expect(result.variables.map((v) => v.uid)).toEqual(['c', 'a', 'b']);
  });

  describe('maxVariables limit (5)', () => {
    const make = (n: number) => `var vs = []; for (var i = 0; i < ${n}; i++) vs.push(D.createVariable('v' + i, 'L', i)); D.success(vs);`;

    it('accepts exactly the limit', async () => {
      const result = await runBody(make(5), { maxVariables: 5 });
      expect(result.status).toBe('success');
      expect(result.variables.map((v) => v.value)).toEqual(['0', '1', '2', '3', '4']);
    });

    it('fails one past the limit with TOO_MANY_VARIABLES_ERROR', async () => {
      const result = await runBody(make(6), { maxVariables: 5 });
      expect(result.status).toBe('failure');
      expect(result.errorType).toBe('TOO_MANY_VARIABLES_ERROR');
      expect(result.message).toBe('the driver reported 6 variables; the limit is 5 per run');
      expect(result.variables).toEqual([]);
      expect(result.limitExceeded).toBeNull();
    });

    it('the default limit is 500', async () => {
      const ok = await runBody(make(500));
      expect(ok.status).toBe('success');
      expect(ok.variables).toHaveLength(500);
      const tooMany = await runBody(make(501));
      expect(tooMany.errorType).toBe('TOO_MANY_VARIABLES_ERROR');
      expect(tooMany.message).toBe('the driver reported 501 variables; the limit is 500 per run');
    });
  });
});
