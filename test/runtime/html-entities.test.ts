// The cheerio bundle carries the entities packages' decode tables as array literals
// (scripts/entity-tables.mjs): D.htmlParse must decode and encode entities exactly as
// the installed cheerio does in Node, for HTML (parse5) and XML (htmlparser2) alike.
import { createHash } from 'node:crypto';
import { load } from 'cheerio';
import { encodeHTML } from 'entities';
import { describe, expect, it } from 'vitest';
import { runSource, useHost } from '../helpers/host.js';

const host = useHost();

// Named (short, long, legacy without ';', astral), numeric, malformed and unknown references.
const TEXT = '&amp; &lt;&gt; &copy &copy; &notin; &NotNestedGreaterGreater; &fjlig; &Afr; &#x1F600; &#65; &#0; &ampx &unknown; &amp';
const HTML = `<div><p title="a &quot;q&quot; &eacute;">${TEXT}</p><pre>&nbsp;&hellip;</pre></div>`;
const XML = `<root><v a="&apos;&quot;">${TEXT.replace(/&(?![a-z#]+;)/g, '&amp;')}</v><w>&lt;&#x263A;&gt;</w></root>`;

/** Every character that has a named reference, written as that reference (~1,500 names). */
const EVERY_CHARACTER = Array.from({ length: 0x1d800 - 0xa0 }, (_, i) => String.fromCodePoint(0xa0 + i))
  .filter((c) => !/[\ud800-\udfff]/.test(c))
  .join('');
const EVERY_NAMED = encodeHTML(EVERY_CHARACTER).match(/&[A-Za-z][A-Za-z0-9]*;/g)!.join(' ');

async function inSandbox(expr: string): Promise<unknown> {
  const result = await runSource(host, `function get_status() { D.success([D.createVariable('out', 'Out', JSON.stringify(${expr}))]); }`);
  expect(result.message).toBeNull();
  return JSON.parse(result.variables[0]!.value!);
}

describe('entities in D.htmlParse', () => {
  it('HTML: text, attributes and serialisation match cheerio in Node', async () => {
    const $ = load(HTML);
    const expected = [$('p').text(), $('p').attr('title'), $('pre').text(), $.html(), $('p').html()];
    const got = await inSandbox(`(function ($) { return [$('p').text(), $('p').attr('title'), $('pre').text(), $.html(), $('p').html()]; })(D.htmlParse(${JSON.stringify(HTML)}))`);
    expect(got).toEqual(expected);
    expect((expected[0] as string).includes('∉')).toBe(true); // the references were decoded at all
  });

  it('every named reference decodes as in Node (HTML and XML parsers)', async () => {
    const html = `<p>${EVERY_NAMED}</p>`;
    expect(EVERY_NAMED.split(' ').length).toBeGreaterThan(1000);
    const texts = [load(html)('p').text(), load(html, { xml: { xmlMode: false, decodeEntities: true } })('p').text()];
    expect(texts[0]).not.toContain('&'); // decoded in Node
    // Compared by digest: a variable's value is too short for the text itself.
    const expected = texts.map((text) => [text.length, createHash('sha256').update(text).digest('hex')]);
    const digest = (text: string) => `[${text}.length, D.crypto.hash(${text}, 'sha256', 'utf8', 'hex')]`;
    const got = await inSandbox(
      `[${digest(`D.htmlParse(${JSON.stringify(html)})('p').text()`)}, ${digest(`D.htmlParse(${JSON.stringify(html)}, { xml: { xmlMode: false, decodeEntities: true } })('p').text()`)}]`,
    );
    expect(got).toEqual(expected);
  });

  it('XML ({xml: true}): text, attributes and serialisation match cheerio in Node', async () => {
    const $ = load(XML, { xml: true });
    const expected = [$('v').text(), $('v').attr('a'), $('w').text(), $.xml()];
    const got = await inSandbox(`(function ($) { return [$('v').text(), $('v').attr('a'), $('w').text(), $.xml()]; })(D.htmlParse(${JSON.stringify(XML)}, { xml: true }))`);
    expect(got).toEqual(expected);
  });

  // The HTML encode table is left out of the bundle as unused (scripts/entity-tables.mjs): every way of encoding on output still matches.
  for (const options of [{ xml: { decodeEntities: false } }, { xml: { encodeEntities: true } }, { xml: { encodeEntities: 'utf8' } }, { xml: { xmlMode: true, encodeEntities: true } }]) {
    it(`encoding entities on output matches too (${JSON.stringify(options.xml)})`, async () => {
      const $ = load(HTML, options as Parameters<typeof load>[1]);
      const expected = [$('p').html(), $.html()];
      const got = await inSandbox(`(function ($) { return [$('p').html(), $.html()]; })(D.htmlParse(${JSON.stringify(HTML)}, ${JSON.stringify(options)}))`);
      expect(got).toEqual(expected);
    });
  }
});
