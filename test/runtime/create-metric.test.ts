// D.createMetric(spec) (issue 18 item 6), as the public drivers teams_rooms_device_status and
// hp_poly_lens_monitoring use it: an object with uid, name, value, metadata { url }, valueType,
// unit, pushed among the createVariable results and passed to D.success.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runSource, useHost } from '../helpers/host.js';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const host = useHost();

// The pattern of those drivers, written for this test.
const LINK_DRIVER = `
function get_status() {
  var url = 'https://console.example.com/devices/' + 'dev-42';
  var variables = [D.createVariable('id', 'Device ID', 'dev-42', null, D.valueType.STRING)];
  var metric = D.createMetric({ uid: 'console-url-link', name: 'Console URL link', value: url, metadata: { url: url }, valueType: D.valueType.NUMBER, unit: '%' });
  variables.push(metric);
  console.log(JSON.stringify(metric.metadata) + ' ' + metric.label);
  D.success(variables);
}`;

describe('D.createMetric', () => {
  it('makes a variable D.success reports, name as its label; metadata stays on the object', async () => {
    const result = await runSource(host, LINK_DRIVER);
    expect(result.status, result.message ?? '').toBe('success');
    expect(result.variables).toEqual([
      { uid: 'id', label: 'Device ID', value: 'dev-42', unit: null, valueType: 'STRING' },
      { uid: 'console-url-link', label: 'Console URL link', value: 'https://console.example.com/devices/dev-42', unit: '%', valueType: 'NUMBER' },
    ]);
    expect(result.logs[0]!.message).toBe('{"url":"https://console.example.com/devices/dev-42"} Console URL link');
  });

  it('label is taken for name, the label defaults to the uid, valueType to STRING', async () => {
    const result = await runSource(host, `function get_status() { D.success([D.createMetric({ uid: 'a', label: 'A', value: 1 }), D.createMetric({ uid: 'b', value: null })]); }`);
    expect(result.variables).toEqual([
      { uid: 'a', label: 'A', value: '1', unit: null, valueType: 'STRING' },
      { uid: 'b', label: 'b', value: null, unit: null, valueType: 'STRING' },
    ]);
  });

  it.each([
    ['no object', `D.createMetric('uid')`, /^TypeError: D\.createMetric: expects one object \{ uid, name, value/],
    ['a bad uid', `D.createMetric({ name: 'x', value: 1 })`, /^TypeError: Invalid variable uid: undefined/],
    ['a bad value type', `D.createMetric({ uid: 'x', value: 1, valueType: 'FLOAT' })`, /invalid value type "FLOAT"/],
    ['metadata that is not an object', `D.createMetric({ uid: 'x', value: 1, metadata: 'https://x' })`, /metadata must be an object such as \{ url: "https:\/\/…" \} \(got string\)/],
  ])('throws in the driver on %s, as createVariable does', async (_what, call, message) => {
    const result = await runSource(host, `function get_status() {\n  ${call};\n}`);
    expect(result.status).toBe('failure');
    expect(result.message).toMatch(message);
    expect(result.message).toMatch(/driver\.js:2:\d+/);
  });

  it('through the CLI', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'driverbox-metric-'));
    const file = path.join(dir, 'link.js');
    await writeFile(file, `function validate() { D.success(); }\n${LINK_DRIVER}\n`);
    const out = await runCli(['run', file, '--json']);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).variables[1]).toEqual({ uid: 'console-url-link', label: 'Console URL link', value: 'https://console.example.com/devices/dev-42', unit: '%', valueType: 'NUMBER' });
  });
});
