#!/usr/bin/env node
// Derives JSON Schemas of the Domotz Public API reference from its rendered Markdown and the operation index
// parsed from it, and writes test/fixtures/public-api-1.14.0/reference.json. Tests validate our answers against
// that file; they never read the reference itself (CI does not have it).
//
//   node scripts/reference-schemas.mjs <domotz-public-api-1.14.0.operations.json> [<...widdershins.md>] [<out.json>]
//
// The Markdown defaults to the operations file's sibling (same stem, .widdershins.md): only it has the enums and the
// allOf renderings. Rules of the rendering, as read from it:
//   - a property table row is |name|type|required|description|; `»` markers give the depth of nested properties;
//   - types: string, string(date-time), integer(int32), number(double), boolean, object, any, [string], [object],
//     [Name](#schemaname) (a reference), [[Name](#...)] (array of references), [allOf] (array of a composition);
//   - *allOf* / *and* separate the members of a composition; a member row named *anonymous* is either a reference
//     or an object whose properties follow one level deeper;
//   - "Enumerated Values" tables (Property|Value) restrict the named string properties of that schema;
//   - nothing in 1.14.0 is nullable: the reference never says a property may be null, so no schema allows it.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const [opsPath, mdArg, outArg] = process.argv.slice(2);
if (!opsPath) {
  console.error('usage: node scripts/reference-schemas.mjs <operations.json> [<widdershins.md>] [<out.json>]');
  process.exit(2);
}
const mdPath = mdArg ?? opsPath.replace(/\.operations\.json$/, '.widdershins.md');
const outPath = outArg ?? resolve(here, '../test/fixtures/public-api-1.14.0/reference.json');

const index = JSON.parse(readFileSync(opsPath, 'utf8'));
const markdown = readFileSync(mdPath, 'utf8').split('\n');

// ---- table rows ------------------------------------------------------------------------------------------------

/** @typedef {{ depth: number, name: string, type: string, required: boolean, description: string }} Row */

/** One property-table line → Row (undefined for header/separator lines). */
function parseRow(line) {
  const cells = line.split('|');
  // | name | type | required | description... | (the description may hold further pipes)
  if (cells.length < 5) return undefined;
  const rawName = cells[1].trim();
  if (rawName === 'Name' || rawName.startsWith('---')) return undefined;
  const depth = (rawName.match(/»/g) ?? []).length;
  const name = rawName.replace(/»/g, '').trim();
  return {
    depth,
    name,
    type: cells[2].trim(),
    required: cells[3].trim() === 'true',
    description: cells.slice(4).join('|').replace(/\|\s*$/, '').trim(),
  };
}

/**
 * The blocks of a "Properties" (or "Response Schema") part: each table is one block; *allOf* / *and* mark a
 * composition. Returns { composition: boolean, tables: Row[][], enums: Map<property, string[]> }.
 */
function parseBlocks(lines) {
  const tables = [];
  const enums = new Map();
  let composition = false;
  let current;
  let inEnums = false;
  for (const line of lines) {
    const t = line.trim();
    if (t === '*allOf*') { composition = true; current = undefined; continue; }
    if (t === '*and*') { current = undefined; continue; }
    if (t.startsWith('#### Enumerated Values')) { inEnums = true; current = undefined; continue; }
    if (!t.startsWith('|')) { if (t !== '') current = undefined; continue; }
    if (inEnums) {
      const cells = t.split('|').map((c) => c.trim());
      if (cells[1] === 'Property' || cells[1].startsWith('---')) continue;
      const list = enums.get(cells[1]) ?? [];
      list.push(cells[2]);
      enums.set(cells[1], list);
      continue;
    }
    const row = parseRow(t);
    if (!row) { if (!current) { current = []; tables.push(current); } continue; }
    if (!current) { current = []; tables.push(current); }
    current.push(row);
  }
  return { composition, tables: tables.filter((x) => x.length > 0), enums };
}

// ---- types -----------------------------------------------------------------------------------------------------

const ref = (name) => ({ $ref: `#/definitions/${name}` });

/** A reference type's schema, without the children the table may list under it. */
function typeSchema(type) {
  let m;
  if ((m = /^\[\[(\w+)\]\(#schema\w+\)\]$/.exec(type))) return { type: 'array', items: ref(m[1]) };
  if ((m = /^\[(\w+)\]\(#schema\w+\)$/.exec(type))) return ref(m[1]);
  if ((m = /^\[(.+)\]$/.exec(type))) {
    if (m[1] === 'allOf') return { type: 'array', items: { allOf: [] } };
    return { type: 'array', items: typeSchema(m[1]) };
  }
  if ((m = /^(string|integer|number|boolean)(?:\((.+)\))?$/.exec(type))) {
    const s = { type: m[1] };
    if (m[2]) s.format = m[2];
    return s;
  }
  if (type === 'object') return { type: 'object' };
  if (type === 'any') return {};
  throw new Error(`unknown type in the reference: ${type}`);
}

/** Where the children of a node go: the object itself, an array's item object, or the object beside a reference. */
function childHost(node) {
  if (node.type === 'array') {
    if (node.items.type === 'object') return node.items;
    if (node.items.$ref) { node.items = { allOf: [node.items, { type: 'object' }] }; return node.items.allOf[1]; }
    if (node.items.allOf) return node.items;
  }
  if (node.$ref) {
    const target = node.$ref;
    delete node.$ref;
    node.allOf = [{ $ref: target }, { type: 'object' }];
    return node.allOf[1];
  }
  if (node.allOf) return node.allOf[node.allOf.length - 1];
  return node;
}

function addProperty(host, row, schema) {
  host.type ??= 'object';
  host.properties ??= {};
  host.properties[row.name] = schema;
  if (row.required) (host.required ??= []).push(row.name);
}

/** Rows of one table (depths relative to `base`) → properties added to `root`. */
function buildRows(rows, root, base = 0) {
  const stack = [root];
  for (const row of rows) {
    const depth = row.depth - base;
    const parent = stack[depth];
    if (!parent) throw new Error(`property ${row.name} nested below nothing (depth ${row.depth})`);
    const schema = typeSchema(row.type);
    if (row.description && row.description !== 'none') schema.description = stripHtml(row.description);
    addProperty(childHost(parent), row, schema);
    stack[depth + 1] = schema;
    stack.length = depth + 2;
  }
  return root;
}

/** A composition member table: its *anonymous* row is the member (a reference, or an object of the rows below). */
function buildMember(rows, base) {
  const [head, ...rest] = rows;
  if (head.name !== '*anonymous*') return buildRows(rows, { type: 'object' }, base);
  const member = typeSchema(head.type);
  if (rest.length > 0) buildRows(rest, member, base + 1);
  return member;
}

function buildBlocks({ composition, tables }) {
  if (tables.length === 0) return { type: 'object' };
  const first = tables[0];
  // Inline answers rendered as |*anonymous*|[allOf]|: an array whose items are the composition that follows.
  if (first.length === 1 && first[0].name === '*anonymous*' && first[0].type === '[allOf]') {
    return { type: 'array', items: { allOf: tables.slice(1).map((t) => buildMember(t, first[0].depth + 1)) } };
  }
  if (composition) return { allOf: tables.map((t) => buildMember(t, 0)) };
  return buildRows(tables.flat(), { type: 'object' });
}

function stripHtml(text) {
  return text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Applies an Enumerated Values table to the schema's own string properties of those names (not through $ref). The
 * table names a property without its path: it belongs to the shallowest property of that name (an event's `name`
 * enum is the event's, not that of the `name` of an object nested in it).
 */
function applyEnums(schema, enums, where) {
  const found = new Map(); // name -> { depth, props[] }
  const visit = (node, depth) => {
    if (!node || typeof node !== 'object') return;
    for (const [name, prop] of Object.entries(node.properties ?? {})) {
      const target = prop.type === 'string' ? prop : prop.type === 'array' && prop.items?.type === 'string' ? prop.items : null;
      if (target && enums.has(name)) {
        const seen = found.get(name);
        if (!seen || depth < seen.depth) found.set(name, { depth, props: [target] });
        else if (depth === seen.depth) seen.props.push(target);
      }
      visit(prop, depth + 1);
    }
    visit(node.items, depth);
    for (const member of node.allOf ?? []) visit(member, depth);
  };
  visit(schema, 0);
  for (const [name, { props }] of found) for (const p of props) p.enum = [...enums.get(name)];
  // An enum of a property the schema only inherits (through $ref) is the referenced schema's own table.
  const skipped = [...enums.keys()].filter((n) => !found.has(n));
  if (skipped.length > 0) console.warn(`${where}: enums of inherited properties left to their schema: ${skipped.join(', ')}`);
}

/**
 * The rendering of the webhook events nests their `name` and `timestamp` at the depth of the row before them (under
 * `data`, or deeper), where their own examples have them at the top: put back at the top what the example has there
 * and what sits, in the derived schema, in an object whose example counterpart lacks it.
 */
function liftToExample(schema, example) {
  if (!example || typeof example !== 'object' || !schema.properties) return;
  for (const key of Object.keys(example)) {
    if (schema.properties[key]) continue;
    const misplaced = (node, sample) => {
      for (const [name, prop] of Object.entries(node.properties ?? {})) {
        const inner = sample && typeof sample === 'object' ? sample[name] : undefined;
        const owner = misplaced(prop, inner);
        if (owner) return owner;
      }
      return node.properties?.[key] && !(sample && typeof sample === 'object' && key in sample) ? node : undefined;
    };
    const owner = misplaced(schema, example) ;
    if (!owner || owner === schema) continue;
    schema.properties[key] = owner.properties[key];
    delete owner.properties[key];
    if (owner.required?.includes(key)) {
      owner.required = owner.required.filter((k) => k !== key);
      if (owner.required.length === 0) delete owner.required;
      (schema.required ??= []).push(key);
    }
  }
}

// ---- schemas ---------------------------------------------------------------------------------------------------

/** Lines of the Markdown between a start index and the next line matching `stop`. */
function sliceUntil(start, stop) {
  const out = [];
  for (let i = start; i < markdown.length && !stop.test(markdown[i]); i++) out.push(markdown[i]);
  return out;
}

const definitions = {};
for (let i = 0; i < markdown.length; i++) {
  const m = /^<h2 id="tocS\w+">(\w+)<\/h2>/.exec(markdown[i]);
  if (!m) continue;
  const section = sliceUntil(i + 1, /^<h2 |^# /);
  const propsAt = section.findIndex((l) => l.startsWith('### Properties'));
  const intro = section.slice(0, propsAt < 0 ? section.length : propsAt).find((l) => /^\*[^*].*\*$/.test(l.trim()));
  const blocks = parseBlocks(propsAt < 0 ? [] : section.slice(propsAt + 1));
  const schema = buildBlocks(blocks);
  liftToExample(schema, index.schemas[m[1]]?.example);
  applyEnums(schema, blocks.enums, m[1]);
  if (intro) schema.description = stripHtml(intro.trim().slice(1, -1));
  definitions[m[1]] = schema;
}

const missing = Object.keys(index.schemas).filter((n) => !definitions[n]);
if (missing.length > 0) throw new Error(`schemas in the index not found in the Markdown: ${missing.join(', ')}`);

// The device answers (listDevices, getDevice, listExcludedDevices) are rendered Inline with no table, only the
// enums of AbstractDevice and IpDevice: the cloud answers the concrete device class, chosen by `protocol`.
definitions.Device = {
  description: 'A device as answered by listDevices/getDevice: the concrete class of AbstractDevice given by protocol',
  allOf: [
    ref('AbstractDevice'),
    { if: { properties: { protocol: { const: 'IP' } } }, then: ref('LocalIpDevice') },
    { if: { properties: { protocol: { const: 'IP_EXTERNAL' } } }, then: ref('ExternalIpDevice') },
    { if: { properties: { protocol: { const: 'DUMMY' } } }, then: ref('DummyDevice') },
  ],
};

// ---- self-check -------------------------------------------------------------------------------------------------

/** Each schema's own example in the reference must validate against what was derived from its table. */
async function checkExamples({ definitions }, operations) {
  const { Ajv } = await import('ajv');
  const formats = (await import('ajv-formats')).default;
  const ajv = new Ajv({ allErrors: true, strict: false });
  formats(ajv);
  ajv.addSchema({ $id: 'reference', definitions });
  let bad = 0;
  for (const [name, { example }] of Object.entries(index.schemas)) {
    if (example === undefined) continue;
    const validate = ajv.getSchema(`reference#/definitions/${name}`);
    if (!validate(example)) {
      bad++;
      console.warn(`${name}: its reference example fails the derived schema: ${ajv.errorsText(validate.errors)}`);
    }
  }
  // And each operation's example answer, against the answer's schema.
  let answers = 0;
  for (const op of operations) {
    if (!op.body) continue;
    const example = operationExample(op.operationId, op.status);
    if (example === undefined) continue;
    answers++;
    const validate = ajv.compile(JSON.parse(JSON.stringify(op.body).replaceAll('"#/definitions/', '"reference#/definitions/')));
    if (!validate(example)) {
      bad++;
      console.warn(`${op.operationId}: its reference example answer fails the derived schema: ${ajv.errorsText(validate.errors)}`);
    }
  }
  if (bad > 0) throw new Error(`${bad} schemas do not accept their own example`);
  console.log(`checked: ${Object.keys(index.schemas).length} schema examples, ${answers} example answers`);
}

/** The JSON example of an operation's success answer in the Markdown, if it has one. */
function operationExample(operationId, status) {
  const at = markdown.findIndex((l) => l === `## ${operationId}`);
  const section = sliceUntil(at + 1, /^## |^# |^<h2 /);
  const start = section.findIndex((l) => l.trim() === `> ${status} Response`);
  if (start < 0) return undefined;
  const open = section.findIndex((l, i) => i > start && l.startsWith('```json'));
  if (open < 0) return undefined;
  const close = section.findIndex((l, i) => i > open && l.startsWith('```'));
  return JSON.parse(section.slice(open + 1, close).join('\n'));
}

// ---- operations ------------------------------------------------------------------------------------------------

/** The "Response Schema" part of an operation's section, for answers rendered inline. */
function inlineResponse(operationId) {
  const at = markdown.findIndex((l) => l === `## ${operationId}`);
  const section = sliceUntil(at + 1, /^## |^# |^<h2 /);
  const rs = section.findIndex((l) => l.includes('-responseschema'));
  return parseBlocks(section.slice(rs + 1));
}

const deviceAnswers = new Set(['listDevices', 'getDevice', 'listExcludedDevices']);
const operations = index.operations.map((op) => {
  const success = op.responses.find((r) => /^2\d\d$/.test(r.status));
  const status = Number(success.status);
  let schema = null;
  let body = null;
  const text = success.schema;
  let m;
  if (text === 'None') body = null;
  else if (text === 'string') { body = { type: 'string' }; schema = 'string'; }
  else if ((m = /^array of (\w+)$/.exec(text))) { body = { type: 'array', items: ref(m[1]) }; schema = `array of ${m[1]}`; }
  else if (/^\w+$/.test(text) && text !== 'Inline' && definitions[text]) { body = ref(text); schema = text; }
  else if (deviceAnswers.has(op.operationId)) {
    const array = op.operationId !== 'getDevice';
    body = array ? { type: 'array', items: ref('Device') } : ref('Device');
    schema = array ? 'array of Device' : 'Device';
  } else {
    const blocks = inlineResponse(op.operationId);
    body = buildBlocks(blocks);
    applyEnums(body, blocks.enums, op.operationId);
    schema = 'inline';
  }
  if (body === null && text !== 'None') throw new Error(`${op.operationId}: unknown answer ${text}`);
  return {
    operationId: op.operationId,
    method: op.method,
    // The rendering appends a stray "?)" to the optional configuration_timestamp segment.
    path: op.path.replace(/\?\)+$/, ''),
    tag: op.tag,
    deprecated: op.deprecated,
    status,
    schema,
    body,
  };
});

const out = {
  $comment: 'Generated by scripts/reference-schemas.mjs from the Domotz Public API reference (rendered Markdown). ' +
    'Facts about the API shape; regenerate rather than edit.',
  version: index.version,
  basePath: index.basePath,
  operations,
  definitions,
};
await checkExamples(out, operations);
mkdirSync(dirname(outPath), { recursive: true });
writeFileSync(outPath, JSON.stringify(out, null, 1) + '\n');
console.log(`${outPath}: ${operations.length} operations, ${Object.keys(definitions).length} schemas`);
