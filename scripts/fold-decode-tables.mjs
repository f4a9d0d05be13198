// An esbuild plugin for the cheerio bundle: the HTML/XML entity decode tables of the `entities`
// packages (three versions come with cheerio, parse5 and htmlparser2) are built at every load of
// their module, from a string split into characters or from base64. That load happens in every
// run's fresh context, where it was ~70% of cheerio's cost. Here each table module is replaced by
// the same values as an array literal (V8 copies it in microseconds): the values are read from
// the package's own module at build time, so they are always the installed version's.
import { pathToFileURL } from 'node:url';

const TABLE_MODULE = /[\\/]entities[\\/].*[\\/]generated[\\/]decode-data-(?:html|xml)\.js$/;

/** `export default …` / `export const name = …` for each exported table, as its values. */
async function foldedSource(file) {
  const exports = await import(pathToFileURL(file).href);
  const lines = [];
  for (const [name, value] of Object.entries(exports)) {
    if (!(value instanceof Uint16Array)) {
      throw new Error(`fold-decode-tables: ${file} exports ${name} that is not a Uint16Array; the entities package changed, update this plugin`);
    }
    const table = `new Uint16Array([${value.join(',')}])`;
    lines.push(name === 'default' ? `export default ${table};` : `export const ${name} = ${table};`);
  }
  if (lines.length === 0) throw new Error(`fold-decode-tables: ${file} exports no table; the entities package changed, update this plugin`);
  return lines.join('\n');
}

export const foldDecodeTables = {
  name: 'fold-decode-tables',
  setup(build) {
    build.onLoad({ filter: TABLE_MODULE }, async (args) => ({ contents: await foldedSource(args.path), loader: 'js' }));
  },
};
