// One first call per library bundle, as a driver makes it; the bundle leaves its exports in
// __driverboxLib. Used by bench:floor (what a library costs a new context) and the snapshot probe.
export const LIBRARY_FIRST_CALLS: Record<'cheerio' | 'lodash' | 'q' | 'buffer', string> = {
  cheerio: `__driverboxLib.load('<html><body><table><tr><td class="v">42</td></tr></table></body></html>')('td.v').text()`,
  lodash: `__driverboxLib.map([1, 2], function (n) { return n * 2; }).join()`,
  q: `typeof __driverboxLib.defer().promise.then`,
  buffer: `__driverboxLib.Buffer.from('hi').toString('base64')`,
};
