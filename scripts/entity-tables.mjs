// An esbuild plugin for the cheerio bundle, about the `entities` packages' generated tables (three
// versions come with cheerio, parse5 and htmlparser2); the bundle is evaluated in every run's
// fresh context, so what a table costs at load, every run pays.
// - Decode tables were built at every load, from a string split into characters or from base64
//   (~70% of cheerio's cost): each module is replaced by the same values as an array literal (V8
//   copies it in microseconds), read from the package's own module at build time, so they are
//   always the installed version's.
// - The HTML encode table (a Map of ~2,000 entries) is built at load but used by nothing cheerio
//   calls: its `new Map` is marked pure, so esbuild drops it where it is unused.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

const DECODE_TABLE = /[\\/]entities[\\/].*[\\/]generated[\\/]decode-data-(?:html|xml)\.js$/;
const ENCODE_TABLE = /[\\/]entities[\\/].*[\\/]generated[\\/]encode-html\.js$/;

/** `export default …` / `export const name = …` for each exported table, as its values. */
async function foldedDecodeTable(file) {
  const exports = await import(pathToFileURL(file).href);
  const lines = [];
  for (const [name, value] of Object.entries(exports)) {
    if (!(value instanceof Uint16Array)) {
      throw new Error(`entity-tables: ${file} exports ${name} that is not a Uint16Array; the entities package changed, update this plugin`);
    }
    const table = `new Uint16Array([${value.join(',')}])`;
    lines.push(name === 'default' ? `export default ${table};` : `export const ${name} = ${table};`);
  }
  if (lines.length === 0) throw new Error(`entity-tables: ${file} exports no table; the entities package changed, update this plugin`);
  return lines.join('\n');
}

/** The module as written, its `new Map(` calls (the outer table and those nested in it) marked side-effect free. */
async function pureEncodeTable(file) {
  return (await readFile(file, 'utf8')).replace(/\bnew Map\(/g, '/* @__PURE__ */ new Map(');
}

export const entityTables = {
  name: 'entity-tables',
  setup(build) {
    build.onLoad({ filter: DECODE_TABLE }, async (args) => ({ contents: await foldedDecodeTable(args.path), loader: 'js' }));
    build.onLoad({ filter: ENCODE_TABLE }, async (args) => ({ contents: await pureEncodeTable(args.path), loader: 'js' }));
  },
};
