// A YAML inventory parsed item by item gives what the whole document gives, and the text a split
// could change the meaning of is left to the whole-document parse (null).
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseYamlByItems } from '../../host/agent/inventory/yaml-items.js';
import { parseInventory, InventoryError } from '../../host/agent/inventory/index.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SPLIT = {
  'block mappings, comments, blank lines': `
# the site's devices
version: 1
devices:
  - name: router   # the edge
    ip: 10.0.0.1
    credentials: { username: admin, password: { env: ROUTER_PASSWORD } }

  # storage
  - name: nas
    host: nas.lan
    portMap:
      443: 8443
    tags: [a, "b, c", 'd: e']
drivers:
  - name: plain
    path: plain.js
    parameters:
      note: |
        two lines
        - not an item
    samplePeriod: 60
associations: []
`,
  'flow items (bench:agent)': 'version: 1\ndevices:\n  - { name: dev-1, ip: 127.0.0.1, portMap: { 80: 8080 } }\n  - { name: dev-2, ip: 127.0.0.1, portMap: { 80: 8080 } }\ndrivers:\n  - { name: status, path: status.js, samplePeriod: 60 }\nassociations:\n  - { driver: status, device: dev-1 }\n',
  'a sequence at the key\'s own indentation, CRLF, an empty entry': 'version: 1\r\ndevices:\r\n- name: a\r\n  ip: 10.0.0.2\r\n-\r\n  name: b\r\n  ip: 10.0.0.3\r\nassociations:\r\n',
  'trailing spaces and a comment after a key': 'version: 1   \ndevices:   # the list\n  - a\ndrivers:  \n  - b\n',
  'an item spread over lines in flow style': 'devices:\n  - { name: a,\n      ip: 10.0.0.4 }\n  - "plain string item"\n  - 42\n',
};

const WHOLE = {
  'an anchor and an alias': 'devices:\n  - &base { name: a, ip: 10.0.0.1 }\n  - *base\n',
  'a tag': 'devices:\n  - !!map { name: a }\n',
  'several documents': 'version: 1\n---\nversion: 2\n',
  'a directive': '%YAML 1.2\n---\nversion: 1\n',
  'a tab': 'devices:\n\t- { name: a }\n',
  'a top-level mapping value': 'settings:\n  a: 1\n',
  'a repeated top-level key': 'version: 1\nversion: 2\n',
  'a quoted top-level key': '"version": 1\n',
  'a flow document': '{ version: 1 }\n',
  'an item that does not parse': 'devices:\n  - { name: a\n  - { name: b }\n',
  'a repeated key in an item': 'devices:\n  - { name: a, name: b }\n',
  'an anchor-like character inside quotes (only slower)': 'devices:\n  - { name: "a *b" }\n',
};

describe('parseYamlByItems', () => {
  for (const [name, text] of Object.entries(SPLIT)) {
    it(`gives what the whole document gives: ${name}`, () => {
      const value = parseYamlByItems(text);
      expect(value).not.toBeNull();
      expect(value).toEqual(parse(text));
    });
  }

  for (const [name, text] of Object.entries(WHOLE)) {
    it(`leaves the text to the whole-document parse: ${name}`, () => {
      expect(parseYamlByItems(text)).toBeNull();
    });
  }
});

describe('an inventory parsed by items', () => {
  it('still reports each problem with its line (the whole document is parsed for it)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'driverbox-yaml-items-'));
    writeFileSync(join(dir, 'plain.js'), 'function validate() { D.success(); }\nfunction get_status() { D.success(); }\n');
    const text = 'version: 1\ndevices:\n  - { name: a, ip: 10.0.0.1 }\n  - { name: b, ip: 10.0.0.2, portMap: { 80: "x" } }\ndrivers:\n  - { name: plain, path: plain.js }\nassociations:\n  - { driver: plain, device: a }\n  - { driver: plain, device: c }\n';
    expect(parseYamlByItems(text)).not.toBeNull();
    let problems: readonly string[] = [];
    try {
      parseInventory(text, { format: 'yaml', file: join(dir, 'inventory.yaml'), env: {} });
    } catch (error) {
      expect(error).toBeInstanceOf(InventoryError);
      problems = (error as InventoryError).problems;
    }
    expect(problems.length).toBe(2);
    expect(problems[0]).toMatch(/^line 4: devices\[1\]\.portMap/);
    expect(problems[1]).toMatch(/^line 9: associations\[1\]\.device/);
  });
});
