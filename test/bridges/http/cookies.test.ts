// The cookie jar of D.device.http: one per device and driver (kept across runs of the same
// driver and device in a host), only with jar: true, never shared with another device or an external host, and
// honouring what the device's Set-Cookie says (Path, Expires, Max-Age, redirects).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from 'tough-cookie';
import { BoundedCookieStore, MAX_COOKIE_BYTES, MAX_COOKIES_PER_DOMAIN, MAX_COOKIES_PER_JAR, MAX_JAR_BYTES } from '../../../host/bridges/http/cookie-store.js';
import { createHost, type Host, type RunRequest } from '../../../host/index.js';
import type { DeviceSpec } from '../../../host/contract/device.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { useHost } from '../../helpers/host.js';

/** One request of a driver made by `sequence`: on the device, or on the run's external device. */
interface Step {
  method?: 'get' | 'post' | 'put' | 'delete';
  external?: boolean;
  options: Record<string, unknown>;
}

/**
 * A driver that sends `steps` one after the other and reports each outcome as a variable
 * (the status code, or ERR:<code>). With `external`, it first creates that external device.
 * The steps come as a parameter, so every run is of the same driver: sessions are per driver.
 */
function sequence(steps: Step[], external?: string): { source: string; parameters: { steps: Step[] } } {
  const source = `function get_status() {
    var steps = D.getParameter('steps');
    var ext = ${external ? `D.createExternalDevice(${JSON.stringify(external)}, { username: 'u', password: 'extpass' })` : 'null'};
    var out = [];
    function next(i) {
      if (i === steps.length) {
        return D.success(out.map(function (o, k) { return D.createVariable('r' + k, 'R' + k, o); }));
      }
      var s = steps[i];
      var dev = s.external ? ext : D.device;
      dev.http[s.method || 'get'](s.options, function (err, res) {
        out.push(err ? 'ERR:' + err.code : String(res.statusCode));
        next(i + 1);
      });
    }
    next(0);
  }`;
  return { source, parameters: { steps } };
}

/** Runs a `sequence` driver. */
function runSource(host: Host, driver: ReturnType<typeof sequence>, request: Omit<RunRequest, 'source'> = {}) {
  return host.run({ source: driver.source, filename: 'driver.js', parameters: driver.parameters, ...request });
}

/** /set-cookie answering with these Set-Cookie lines. */
const setCookie = (...lines: string[]) => `/set-cookie?${lines.map((l) => `cookie=${encodeURIComponent(l)}`).join('&')}`;

let tag = 0;
/** A unique echo path, so each test finds its own request among those the server saw. */
const unique = (name: string) => `/echo?${name}=${++tag}`;

describe('D.device.http cookie jar', () => {
  const host = useHost({ externalHosts: ['localhost'] });
  let server: DeviceServer;

  beforeAll(async () => {
    server = await startDeviceServer({
      route: (req, res) => {
        const url = new URL(req.url, 'http://device');
        if (url.pathname === '/login') {
          // Sets a session cookie and redirects, as device login pages do.
          res.writeHead(302, { 'set-cookie': 'session=r1; Path=/', location: url.searchParams.get('to') ?? '/after' });
          res.end();
          return true;
        }
        if (url.pathname === '/login-chain') {
          // First hop of a chain: sets one cookie and goes to /login, which sets another.
          res.writeHead(302, { 'set-cookie': 'first=c1; Path=/', location: `/login?to=${encodeURIComponent(url.searchParams.get('to') ?? '/after')}` });
          res.end();
          return true;
        }
        if (url.pathname === '/admin/hop') {
          // Leaves /admin for the page named in ?to=.
          res.writeHead(302, { location: url.searchParams.get('to') ?? '/public' });
          res.end();
          return true;
        }
        if (url.pathname === '/logout') {
          // Deletes the session cookie and redirects, as device logout pages do.
          res.writeHead(302, { 'set-cookie': 'sid=; Path=/; Max-Age=0', location: url.searchParams.get('to') ?? '/bye' });
          res.end();
          return true;
        }
        return false;
      },
    });
  });
  afterAll(() => server.close());

  /** The Cookie header the server saw on the request for `url` (exactly one such request). */
  const cookieOf = (url: string): string | undefined => {
    const matches = server.seen.filter((s) => s.url === url);
    expect(matches, `requests for ${url}`).toHaveLength(1);
    return matches[0]!.headers.cookie;
  };

  const device = (id: string | undefined, extra: Partial<DeviceSpec> = {}): DeviceSpec => ({
    ...(id === undefined ? {} : { id }),
    ip: '127.0.0.1',
    portMap: { 80: server.port },
    ...extra,
  });

  it('sends a cookie set by a response on a later request of the same run (jar: true)', async () => {
    const later = unique('same-run');
    const result = await runSource(
      host,
      sequence([{ options: { url: setCookie('sid=abc; Path=/'), jar: true } }, { options: { url: later, jar: true } }]),
      { device: device('cookie-same-run') },
    );
    expect(result.status).toBe('success');
    expect(result.variables.map((v) => v.value)).toEqual(['200', '200']);
    expect(cookieOf(later)).toBe('sid=abc');
  });

  it('keeps the jar across runs of the same device id in the same host', async () => {
    await runSource(host, sequence([{ options: { url: setCookie('sid=abc; Path=/'), jar: true } }]), { device: device('cookie-across-runs') });
    const later = unique('across-runs');
    const result = await runSource(host, sequence([{ options: { url: later, jar: true } }]), { device: device('cookie-across-runs') });
    expect(result.variables[0]!.value).toBe('200');
    expect(cookieOf(later)).toBe('sid=abc');
  });

  it('keeps the jar across runs of a device without id known by the same address and port map', async () => {
    // Its own server: its port map makes this device's address unlike any other test's.
    const own = await startDeviceServer();
    try {
      const addressed = { ip: '127.0.0.1', portMap: { 80: own.port } };
      await runSource(host, sequence([{ options: { url: setCookie('anon=1; Path=/'), jar: true } }]), { device: addressed });
      await runSource(host, sequence([{ options: { url: '/echo?second', jar: true } }]), { device: { ...addressed } });
      expect(own.seen.at(-1)).toMatchObject({ url: '/echo?second' });
      expect(own.seen.at(-1)!.headers.cookie).toBe('anon=1');
      // Another port map is another device: the same server sees no cookie from it.
      await runSource(host, sequence([{ options: { url: '/echo?other-map', port: 8080, jar: true } }]), {
        device: { ip: '127.0.0.1', portMap: { 8080: own.port } },
      });
      expect(own.seen.at(-1)).toMatchObject({ url: '/echo?other-map' });
      expect(own.seen.at(-1)!.headers.cookie).toBeUndefined();
    } finally {
      await own.close();
    }
  });

  it('never sends a device cookie to another device id on the same address', async () => {
    await runSource(host, sequence([{ options: { url: setCookie('sid=abc; Path=/'), jar: true } }]), { device: device('cookie-owner') });
    const other = unique('other-device');
    const result = await runSource(host, sequence([{ options: { url: other, jar: true } }]), { device: device('cookie-stranger') });
    expect(result.variables[0]!.value).toBe('200');
    expect(cookieOf(other)).toBeUndefined();
    // The owner still has it: the cookie was stored, just not shared.
    const mine = unique('owner-again');
    await runSource(host, sequence([{ options: { url: mine, jar: true } }]), { device: device('cookie-owner') });
    expect(cookieOf(mine)).toBe('sid=abc');
  });

  it('keeps device and external-device cookies apart even on the same origin', async () => {
    // The device is reached as localhost:port, exactly the origin of the external device:
    // only separate jars keep the cookies apart.
    const toExternal = unique('to-external');
    const toDevice = unique('to-device');
    const toExternalAgain = unique('to-external-again');
    const result = await runSource(
      host,
      sequence(
        [
          { options: { url: setCookie('devsid=d1; Path=/'), jar: true } },
          { external: true, options: { url: toExternal, port: server.port, jar: true } },
          { external: true, options: { url: setCookie('extsid=e1; Path=/'), port: server.port, jar: true } },
          { options: { url: toDevice, jar: true } },
          { external: true, options: { url: toExternalAgain, port: server.port, jar: true } },
        ],
        'localhost',
      ),
      { device: device('cookie-vs-external', { host: 'localhost' }) },
    );
    expect(result.status).toBe('success');
    expect(result.variables.map((v) => v.value)).toEqual(['200', '200', '200', '200', '200']);
    expect(result.http.map((h) => new URL(h.url).origin)).toEqual(Array(5).fill(`http://localhost:${server.port}`));
    expect(cookieOf(toExternal)).toBeUndefined();
    expect(cookieOf(toDevice)).toBe('devsid=d1');
    expect(cookieOf(toExternalAgain)).toBe('extsid=e1');
  });

  it('stores nothing without jar: true, and sends nothing from the jar without it', async () => {
    const afterNoJar = unique('after-nojar');
    await runSource(
      host,
      sequence([{ options: { url: setCookie('nojar=1; Path=/') } }, { options: { url: afterNoJar, jar: true } }]),
      { device: device('cookie-nojar') },
    );
    expect(cookieOf(afterNoJar)).toBeUndefined();

    // Now the jar holds a cookie; a request without jar: true does not send it.
    const withJar = unique('with-jar');
    const withoutJar = unique('without-jar');
    await runSource(
      host,
      sequence([
        { options: { url: setCookie('sid=abc; Path=/'), jar: true } },
        { options: { url: withoutJar } },
        { options: { url: withJar, jar: true } },
      ]),
      { device: device('cookie-nojar') },
    );
    expect(cookieOf(withoutJar)).toBeUndefined();
    expect(cookieOf(withJar)).toBe('sid=abc');
  });

  it("sends the driver's own Cookie header as given, and first, before the jar's, with jar: true", async () => {
    const ownOnly = unique('own-only');
    const merged = unique('merged');
    await runSource(
      host,
      sequence([
        { options: { url: setCookie('sid=abc; Path=/'), jar: true } },
        { options: { url: ownOnly, headers: { Cookie: 'own=1; lang=en' } } },
        { options: { url: merged, headers: { Cookie: 'own=1' }, jar: true } },
      ]),
      { device: device('cookie-own-header') },
    );
    expect(cookieOf(ownOnly)).toBe('own=1; lang=en');
    expect(cookieOf(merged)).toBe('own=1; sid=abc');
  });

  it('keeps cookies set on redirect hops and sends them on the next hop', async () => {
    const result = await runSource(host, sequence([{ options: { url: '/login-chain?to=%2Fafter%3Fhop', jar: true } }]), {
      device: device('cookie-redirect-hops'),
    });
    expect(result.variables[0]!.value).toBe('200');
    expect(result.http.map((h) => [h.status, new URL(h.url).pathname])).toEqual([
      [302, '/login-chain'],
      [302, '/login'],
      [200, '/after'],
    ]);
    const hop2 = server.seen.find((s) => s.url.startsWith('/login?to=%2Fafter%3Fhop'))!;
    expect(hop2.headers.cookie).toBe('first=c1');
    expect(cookieOf('/after?hop')).toBe('first=c1; session=r1');
  });

  it('keeps a cookie set by the last hop of a redirect for the next request', async () => {
    const target = setCookie('viaredirect=v1; Path=/');
    const next = unique('after-redirect');
    const result = await runSource(
      host,
      sequence([{ options: { url: `/redirect?to=${encodeURIComponent(target)}`, jar: true } }, { options: { url: next, jar: true } }]),
      { device: device('cookie-redirect-last-hop') },
    );
    expect(result.variables.map((v) => v.value)).toEqual(['200', '200']);
    expect(result.http.map((h) => h.status)).toEqual([302, 200, 200]);
    expect(cookieOf(next)).toBe('viaredirect=v1');
  });

  it('starts a new host with empty jars', async () => {
    const first = createHost();
    try {
      await runSource(first, sequence([{ options: { url: setCookie('sid=abc; Path=/'), jar: true } }]), { device: device('cookie-new-host') });
      const sameHost = unique('same-host');
      await runSource(first, sequence([{ options: { url: sameHost, jar: true } }]), { device: device('cookie-new-host') });
      expect(cookieOf(sameHost)).toBe('sid=abc');
    } finally {
      await first.close();
    }
    const second = createHost();
    try {
      const newHost = unique('new-host');
      const result = await runSource(second, sequence([{ options: { url: newHost, jar: true } }]), { device: device('cookie-new-host') });
      expect(result.variables[0]!.value).toBe('200');
      expect(cookieOf(newHost)).toBeUndefined();
    } finally {
      await second.close();
    }
  });

  it('honours the Path of a cookie', async () => {
    const outside = unique('outside');
    await runSource(
      host,
      sequence([
        { options: { url: setCookie('adm=1; Path=/admin', 'all=1; Path=/'), jar: true } },
        { options: { url: outside, jar: true } },
        { options: { url: '/admin/echo?inside', jar: true } },
      ]),
      { device: device('cookie-path') },
    );
    expect(cookieOf(outside)).toBe('all=1');
    const inside = cookieOf('/admin/echo?inside')!;
    expect(inside.split('; ').sort()).toEqual(['adm=1', 'all=1']);
  });

  it('honours Expires and Max-Age: expired and deleted cookies are not sent', async () => {
    const afterSet = unique('after-set');
    const afterDelete = unique('after-delete');
    await runSource(
      host,
      sequence([
        {
          options: {
            url: setCookie('old=1; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT', 'gone=1; Path=/', 'future=1; Path=/; Expires=Fri, 01 Jan 2100 00:00:00 GMT', 'aged=1; Path=/; Max-Age=3600'),
            jar: true,
          },
        },
        { options: { url: afterSet, jar: true } },
        { options: { url: setCookie('gone=; Path=/; Max-Age=0'), jar: true } },
        { options: { url: afterDelete, jar: true } },
      ]),
      { device: device('cookie-expiry') },
    );
    expect(cookieOf(afterSet)!.split('; ').sort()).toEqual(['aged=1', 'future=1', 'gone=1']);
    expect(cookieOf(afterDelete)!.split('; ').sort()).toEqual(['aged=1', 'future=1']);
  });

  // BUG (host/bridges/http/index.ts, performRequest): with jar: true the Cookie header is only
  // set when the jar has something for the hop's URL (`if (merged) headers.cookie = merged`), so
  // a hop for which the jar has nothing resends the previous hop's Cookie header. Todo until fixed.
  it('applies the Path of a cookie on every redirect hop, not only the first', async () => {
    // Hop 1 (/admin/hop) rightly carries adm=1; hop 2 (/public…) is outside /admin and must not.
    const result = await runSource(
      host,
      sequence([
        { options: { url: setCookie('adm=1; Path=/admin'), jar: true } },
        { options: { url: '/admin/hop?to=%2Fpublic%3Fpath-hop', jar: true } },
      ]),
      { device: device('cookie-path-on-hops') },
    );
    expect(result.variables.map((v) => v.value)).toEqual(['200', '200']);
    expect(cookieOf('/admin/hop?to=%2Fpublic%3Fpath-hop')).toBe('adm=1');
    expect(cookieOf('/public?path-hop')).toBeUndefined();
  });

  // BUG: same cause as above; a logout page deleting the session then redirecting gets it back.
  it('stops sending a cookie deleted (Max-Age=0) by a redirect hop on the following hop', async () => {
    const result = await runSource(
      host,
      sequence([
        { options: { url: setCookie('sid=abc; Path=/'), jar: true } },
        { options: { url: '/logout?to=%2Fbye%3Fdeleted-on-hop', jar: true } },
      ]),
      { device: device('cookie-deleted-on-hop') },
    );
    expect(result.variables.map((v) => v.value)).toEqual(['200', '200']);
    expect(cookieOf('/logout?to=%2Fbye%3Fdeleted-on-hop')).toBe('sid=abc');
    expect(cookieOf('/bye?deleted-on-hop')).toBeUndefined();
  });
});

describe('the bounded cookie store (cookie-store.ts)', () => {
  const jarOf = () => {
    const store = new BoundedCookieStore();
    return { store, jar: new CookieJar(store) };
  };

  it('removes a path once its last cookie is gone: what it keeps stays within the bounds however many paths a device used', () => {
    const { store, jar } = jarOf();
    // 40 answers of 150 new cookies, each on its own path: the old store kept all 6000 paths.
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 150; i++) jar.setCookieSync(`c${round}_${i}=v; Path=/p${round}_${i}`, 'http://device.test/');
    }
    expect(store.size.cookies).toBe(MAX_COOKIES_PER_DOMAIN);
    expect(store.size.paths).toBe(MAX_COOKIES_PER_DOMAIN);
    // The newest are kept, and a request still finds the one for its path.
    expect(jar.getCookieStringSync('http://device.test/p39_149')).toBe('c39_149=v');
    expect(jar.getCookieStringSync('http://device.test/p0_0')).toBe('');
    expect(store.dropped).toBe(40 * 150 - MAX_COOKIES_PER_DOMAIN);
    // Expired cookies read away leave no path behind either.
    jar.setCookieSync('gone=1; Path=/short; Max-Age=0', 'http://device.test/');
    jar.getCookieStringSync('http://device.test/short');
    expect(store.size.paths).toBe(store.size.cookies);
    expect(store.size.cookies).toBeLessThan(MAX_COOKIES_PER_DOMAIN);
  });

  it('bounds the whole jar across domains, oldest first, and keeps an updated cookie in its place', () => {
    const { store, jar } = jarOf();
    jar.setCookieSync('first=1; Path=/', 'http://a0.device.test/');
    for (let i = 1; i < MAX_COOKIES_PER_JAR; i++) jar.setCookieSync(`k${i}=v; Path=/`, `http://a${i % 10}.device.test/`);
    // Updated, the first cookie keeps its age: it is still the oldest, the first to go past the bound.
    jar.setCookieSync('first=2; Path=/', 'http://a0.device.test/');
    expect(store.size.cookies).toBe(MAX_COOKIES_PER_JAR);
    jar.setCookieSync('last=1; Path=/', 'http://a9.device.test/');
    expect(store.size.cookies).toBe(MAX_COOKIES_PER_JAR);
    expect(jar.getCookieStringSync('http://a0.device.test/')).not.toContain('first=');
    expect(jar.getCookieStringSync('http://a9.device.test/')).toContain('last=1');
    // Large cookies count by their text: the jar holds at most MAX_JAR_BYTES of them.
    const big = 'x'.repeat(MAX_COOKIE_BYTES - 10);
    for (let i = 0; i < 100; i++) jar.setCookieSync(`b${i}=${big}; Path=/`, `http://b${i % 5}.device.test/`);
    expect(store.size.bytes).toBeLessThanOrEqual(MAX_JAR_BYTES);
    expect(store.size.cookies).toBeGreaterThan(MAX_JAR_BYTES / (2 * MAX_COOKIE_BYTES));
  });
});
