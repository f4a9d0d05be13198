// Reaching host objects from what the sandbox hands the driver: D's functions, the errors,
// responses and arguments of callbacks, stack-trace hooks, promises and thenables. Each
// attack reports what it found; each must find only the sandbox's own realm, and the host
// must serve the next run (attack() in harness.ts).
import { describe, expect, it } from 'vitest';
import { useDeviceServer } from '../helpers/device-server.js';
import { useHost } from '../helpers/host.js';
import { attack, logged, reported } from './harness.js';

/** Inside a driver: is `value` (or anything it holds) a way out? Text for the report. */
const INSPECT = `
function looksLikeHost(value) {
  if (value === null || value === undefined) return false;
  if (typeof value !== 'object' && typeof value !== 'function') return false;
  try {
    if (typeof value.applySync === 'function' || typeof value.derefInto === 'function' || typeof value.copySync === 'function') return true;
    if (typeof value.process === 'object' || typeof value.require === 'function' && value.require !== require) return true;
    if (typeof value === 'function' && /applySync|hostRef|process\\.binding/.test(Function.prototype.toString.call(value))) return true;
  } catch (e) {}
  return false;
}`;

describe('security: host objects', () => {
  const host = useHost();
  const server = useDeviceServer();
  const device = server.target;

  it('H1 Function from a D function\'s constructor is the sandbox\'s own: its global has no process, no host names', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var F = D.success.constructor;
        var g = F('return this')();
        var out = [F === Function, g === globalThis, F('return typeof process')(), typeof g.process, typeof g.Buffer, typeof g.setTimeout,
          typeof D.device.http.get.constructor.constructor('return this.global')()];
        D.success([D.createVariable('found', 'Found', out.join(','))]);
      }`,
    );
    // setTimeout is the sandbox's own (runtime/timers.ts: host timers, bounded by the run), a function since issue 18.
    expect(reported(r)).toBe('true,true,undefined,undefined,undefined,function,undefined');
  });

  it('H2 the error a callback receives: its constructor chain ends in the sandbox realm', async () => {
    const r = await attack(
      host,
      `function get_status() {
        D.device.http.get('/x', function (err) {
          var F = err.constructor.constructor;
          var out = [err.code, err instanceof Error, Object.getPrototypeOf(err) === Error.prototype, F === Function,
            F('return typeof process')(), F('return this')() === globalThis, typeof err.stack];
          D.success([D.createVariable('found', 'Found', out.join(','))]);
        });
      }`,
      { device: { ip: '127.0.0.1', portMap: { 80: 1 } } },
    );
    expect(reported(r)).toBe('ECONNREFUSED,true,true,true,undefined,true,string');
  });

  it('H3 a response, its headers and its parsed JSON body are plain sandbox objects', async () => {
    const r = await attack(
      host,
      `function get_status() {
        D.device.http.get({ url: '/echo', json: true }, function (err, res, body) {
          var out = [res.statusCode, Object.getPrototypeOf(res) === Object.prototype, Object.getPrototypeOf(res.headers) === Object.prototype,
            Object.getPrototypeOf(body) === Object.prototype, res.headers.constructor.constructor === Function,
            body.constructor.constructor('return typeof process')(), Object.getOwnPropertyNames(res).sort().join('|')];
          D.success([D.createVariable('found', 'Found', out.join(','))]);
        });
      }`,
      { device: device() },
    );
    expect(reported(r)).toBe('200,true,true,true,true,undefined,body|headers|statusCode|statusMessage');
  });

  it('H4 walking .caller / .arguments up from a callback and from the entry point reaches no runtime function', async () => {
    const r = await attack(
      host,
      `${INSPECT}
      function walk(fn) {
        var found = [];
        for (var depth = 0; fn && depth < 20; depth++) {
          try { var args = fn.arguments; if (args) for (var i = 0; i < args.length; i++) if (looksLikeHost(args[i])) found.push('arg'); } catch (e) {}
          try { fn = fn.caller; } catch (e) { found.push('blocked'); break; }
          if (fn && !/driver-marker/.test(String(fn))) found.push('runtime:' + String(fn).slice(0, 40));
        }
        return found;
      }
      function get_status() {
        /* driver-marker */
        var fromEntry = walk(get_status);
        D.device.http.get('/x', function cb() {
          /* driver-marker */
          var fromCallback = walk(cb);
          console.log(JSON.stringify({ entry: fromEntry, callback: fromCallback }));
          D.success();
        });
      }`,
      { device: device() },
    );
    expect(r.status, r.message ?? '').toBe('success');
    const found = logged<{ entry: string[]; callback: string[] }>(r);
    // The runtime is strict code: a sloppy driver function's caller is null (or the walk is refused).
    for (const trail of [found.entry, found.callback]) {
      expect(trail.filter((s) => s !== 'blocked')).toEqual([]);
    }
  });

  it('H5 eval, indirect eval and new Function work but stay in the sandbox realm', async () => {
    const r = await attack(
      host,
      `${INSPECT}
      function get_status() {
        var direct = eval('typeof process + "/" + typeof require');
        var g = (0, eval)('this');
        var made = new Function('a', 'return [typeof a, typeof this.process, typeof module, typeof exports, typeof __dirname]')(1);
        var own = ['looksLikeHost', 'get_status'];
        var names = Object.getOwnPropertyNames(g).filter(function (n) {
          return own.indexOf(n) < 0 && (looksLikeHost(g[n]) || /^(_?ivm|isolated.?vm|Reference|ExternalCopy|__driverbox.*|process|Buffer|global|setImmediate|module|exports|fetch)$/i.test(n));
        });
        D.success([D.createVariable('found', 'Found', [direct, g === globalThis, made.join('|'), names.join('|')].join(','))]);
      }`,
    );
    // require is the sandbox's refusing stub (a function); nothing else of Node is there (the
    // timers are the runtime's own, and looksLikeHost would name them if they led to the host).
    expect(reported(r)).toBe('undefined/function,true,number|undefined|undefined|undefined|undefined,');
  });

  it('H6 Error.prepareStackTrace sees only sandbox call sites: no receiver or function of the runtime, no host file', async () => {
    const r = await attack(
      host,
      `${INSPECT}
      var sites = [];
      Error.prepareStackTrace = function (error, callSites) {
        callSites.forEach(function (s) {
          var self, fn;
          try { self = s.getThis(); } catch (e) {}
          try { fn = s.getFunction(); } catch (e) {}
          sites.push({ file: String(s.getFileName()), host: looksLikeHost(self) || looksLikeHost(fn), fn: fn === undefined ? 'hidden' : 'visible' });
        });
        return 'custom';
      };
      function get_status() {
        try { D.createVariable('', 'bad', 1); } catch (e) { void e.stack; }       // thrown inside the runtime
        D.device.http.get('/x', function () {
          try { D.createTable(); } catch (e) { void e.stack; }
          console.log(JSON.stringify(sites));
          D.success();
        });
      }`,
      { device: device() },
    );
    expect(r.status, r.message ?? '').toBe('success');
    const sites = logged<Array<{ file: string; host: boolean; fn: string }>>(r);
    expect(sites.length).toBeGreaterThan(2);
    expect(sites.filter((s) => s.host)).toEqual([]);
    // Runtime frames come from driverbox:core.js (strict: no function or receiver given out); no path of the host's disk.
    for (const s of sites) expect(s.file).toMatch(/^(driver\.js|driverbox:core\.js|undefined|null)$/);
    expect(sites.filter((s) => s.file === 'driverbox:core.js' && s.fn === 'visible')).toEqual([]);
  });

  it('H7 a throw whose stack prepareStackTrace turns into an object or a throwing getter still fails cleanly with GENERIC_ERROR', async () => {
    const r = await attack(
      host,
      `Error.prepareStackTrace = function () { return { toString: function () { throw new Error('gotcha'); } }; };
      Error.stackTraceLimit = Infinity;
      var e = new Error('boom');
      Object.defineProperty(e, 'message', { get: function () { throw new Error('message getter'); } });
      throw e;`,
    );
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('GENERIC_ERROR');
    expect(r.limitExceeded).toBeNull();
  });

  it('H8 Error.captureStackTrace on D\'s own functions exposes nothing of the host', async () => {
    const r = await attack(
      host,
      `${INSPECT}
      function get_status() {
        var holder = {};
        Error.captureStackTrace(holder, D.success);
        void holder.stack; // formatted now, before the hook below exists
        var leaks = [];
        Error.prepareStackTrace = function (e, sites) { sites.forEach(function (s) { try { if (looksLikeHost(s.getThis()) || looksLikeHost(s.getFunction())) leaks.push(1); } catch (x) {} }); return sites.length; };
        D.device.http.get('/x', function () {
          var inner = {};
          Error.captureStackTrace(inner);
          var depth = inner.stack;
          D.success([D.createVariable('found', 'Found', typeof holder.stack + ',' + typeof depth + ',' + leaks.length)]);
        });
      }`,
      { device: device() },
    );
    expect(reported(r)).toBe('string,number,0');
  });

  it('H9 a thenable returned by the entry point is never called by the runtime or the host', async () => {
    const r = await attack(
      host,
      `function get_status() {
        return { then: function (resolve) { D.success([D.createVariable('found', 'Found', 'then was called with ' + typeof resolve)]); } };
      }`,
    );
    // Had anything awaited the return value, then() would have ended the run with a success.
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('TIMEOUT_ERROR');
    expect(r.message).toMatch(/returned without calling D\.success or D\.failure/);
    expect(r.variables).toEqual([]);
  });

  it('H10 Promise species, a replaced then and Object.prototype.then around bridged results: the run still works, nothing is captured', async () => {
    const r = await attack(
      host,
      `${INSPECT}
      var captured = [];
      var realThen = Promise.prototype.then;
      Promise.prototype.then = function (a, b) { for (var i = 0; i < arguments.length; i++) if (looksLikeHost(arguments[i])) captured.push('then'); return realThen.call(this, a, b); };
      Object.defineProperty(Promise, Symbol.species, { get: function () { captured.push('species-read'); return Promise; } });
      Object.prototype.then = function (resolve) { captured.push('thenable:' + looksLikeHost(this)); };
      function get(url) { return new Promise(function (resolve) { D.device.http.get(url, function (err, res, body) { resolve(body); }); }); }
      async function get_status() {
        var body = await get('/echo');
        delete Object.prototype.then;
        var hosty = captured.filter(function (c) { return c === 'then' || c === 'thenable:true'; });
        D.success([D.createVariable('found', 'Found', JSON.parse(body).url + ',' + hosty.length)]);
      }`,
      { device: device() },
    );
    expect(r.status, r.message ?? '').toBe('success');
    expect(reported(r)).toBe('/echo,0');
  });

  it('H11 a walk of everything reachable from D (properties, prototypes, getters) finds no host reference', async () => {
    const r = await attack(
      host,
      `${INSPECT}
      function get_status() {
        var seen = new Set(), queue = [D, console, require], hits = [], visited = 0;
        while (queue.length && visited < 20000) {
          var v = queue.shift();
          if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) continue;
          seen.add(v); visited++;
          if (looksLikeHost(v)) hits.push(String(v).slice(0, 60));
          var keys = [];
          try { keys = Reflect.ownKeys(v); } catch (e) {}
          keys.forEach(function (k) {
            var d; try { d = Object.getOwnPropertyDescriptor(v, k); } catch (e) { return; }
            if (!d) return;
            if ('value' in d) queue.push(d.value);
            if (d.get) { queue.push(d.get); try { queue.push(d.get.call(v)); } catch (e) {} }
            if (d.set) queue.push(d.set);
          });
          try { queue.push(Object.getPrototypeOf(v)); } catch (e) {}
        }
        D.success([D.createVariable('found', 'Found', hits.length + ',' + (visited > 200))]);
      }`,
    );
    expect(reported(r)).toBe('0,true');
  });

  it('H12 getters, Proxies and toJSON in request options run once, in the sandbox: the host gets a plain copy', async () => {
    const before = server.seen.length;
    const r = await attack(
      host,
      `function get_status() {
        var reads = 0;
        var options = new Proxy({}, {
          ownKeys: function () { return ['url', 'headers']; },
          getOwnPropertyDescriptor: function () { return { enumerable: true, configurable: true }; },
          get: function (t, k) { if (k === 'url') { reads++; return reads === 1 ? '/first' : 'http://192.0.2.1/second'; } if (k === 'headers') return { 'x-a': 'b' }; return undefined; },
        });
        var bad = [];
        try { D.device.http.get({ url: '/x', n: 10n }, function () {}); } catch (e) { bad.push(e.name); }
        var cyclic = { url: '/x' }; cyclic.self = cyclic;
        try { D.device.http.get(cyclic, function () {}); } catch (e) { bad.push(e.name); }
        D.device.http.get(options, function (err, res, body) {
          D.success([D.createVariable('found', 'Found', JSON.parse(body).url + ',' + reads + ',' + bad.join('|'))]);
        });
      }`,
      { device: device() },
    );
    expect(reported(r)).toBe('/first,1,TypeError|TypeError');
    expect(server.seen.slice(before).map((s) => s.url)).toEqual(['/first']);
  });
});
