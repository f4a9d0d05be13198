// No state of one run is visible to the next, for the libraries too: a driver that tampers with
// cheerio's, lodash's, q's and the Buffer shim's exports and prototypes (and the built-ins they
// use) leaves the next run on the very same pooled isolate with pristine libraries.
import { describe, expect, it } from 'vitest';
import { runSource, useHost } from '../helpers/host.js';

// One thread, one isolate: the second run is served by the isolate the first one tampered in.
const host = useHost({ threads: 1, maxIsolates: 1, warmIsolates: 1 });

const TAMPER = `
function get_status() {
  var $ = D.htmlParse('<p class="a">x</p>');
  var cheerioProto = Object.getPrototypeOf($('p'));
  cheerioProto.text = function () { return 'tampered'; };
  cheerioProto.tampered = true;
  Object.getPrototypeOf(cheerioProto).tampered = true;

  D._.map = function () { return 'tampered'; };
  D._.VERSION = 'tampered';
  D._.mixin({ tampered: function () { return true; } });
  D._.prototype.value = function () { return 'tampered'; };

  D.q.defer = function () { return 'tampered'; };
  D.q.makePromise.prototype.then = function () { return 'tampered'; };
  D.q.tampered = true;

  var B = D._unsafe.buffer.from('x').constructor;
  B.prototype.toString = function () { return 'tampered'; };
  B.from = function () { return 'tampered'; };
  B.tampered = true;
  Object.getPrototypeOf(B.prototype).tampered = true; // Uint8Array.prototype

  Object.prototype.tampered = true;
  Array.prototype.tampered = true;
  D.success([D.createVariable('tampered', 'Tampered', $('p').text())]);
}`;

const CHECK = `
function get_status() {
  var $ = D.htmlParse('<p class="a">x</p>');
  var B = D._unsafe.buffer.from('x').constructor;
  var seen = {
    cheerioText: $('p.a').text(),
    cheerioProto: 'tampered' in Object.getPrototypeOf($('p')),
    lodashMap: D._.map([1, 2], function (n) { return n + 1; }),
    lodashVersion: D._.VERSION,
    lodashMixin: typeof D._.tampered,
    lodashChain: D._([2, 1]).sortBy().value(),
    qDefer: typeof D.q.defer().promise.then,
    qThen: D.q.makePromise.prototype.then.toString().indexOf('tampered') === -1,
    qTampered: D.q.tampered === undefined,
    bufferText: D._unsafe.buffer.from('hi').toString('base64'),
    bufferFrom: typeof B.from('y'),
    bufferTampered: B.tampered === undefined && !('tampered' in B.prototype),
    objectProto: ({}).tampered === undefined && [].tampered === undefined,
  };
  D.success([D.createVariable('seen', 'Seen', JSON.stringify(seen))]);
}`;

describe('libraries are pristine in every run', () => {
  it('a run that mutates cheerio, lodash, q and Buffer leaves the next run on the same isolate untouched', async () => {
    const tamper = await runSource(host, TAMPER);
    expect(tamper.message).toBeNull();
    expect(tamper.variables[0]?.value).toBe('tampered'); // the tampering took effect in its own run
    const created = host.stats().created;

    const check = await runSource(host, CHECK);
    expect(check.message).toBeNull();
    expect(host.stats().created).toBe(created); // no new isolate: the same one served both runs
    expect(host.stats().alive).toBe(1);
    expect(JSON.parse(check.variables[0]!.value!)).toEqual({
      cheerioText: 'x',
      cheerioProto: false,
      lodashMap: [2, 3],
      lodashVersion: expect.stringMatching(/^4\.\d+\.\d+$/),
      lodashMixin: 'undefined',
      lodashChain: [1, 2],
      qDefer: 'function',
      qThen: true,
      qTampered: true,
      bufferText: Buffer.from('hi').toString('base64'),
      bufferFrom: 'object',
      bufferTampered: true,
      objectProto: true,
    });
  });
});
