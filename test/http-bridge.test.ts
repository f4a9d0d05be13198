import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSource, useHost } from './helpers/host.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('D.device.http (minimal undici bridge)', () => {
  const host = useHost({ externalHosts: ['localhost'] });
  const seen: Seen[] = [];
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        if (req.url === '/big') {
          res.end('x'.repeat(5000));
        } else if (req.url === '/slow') {
          setTimeout(() => res.end('late'), 2000);
        } else {
          res.setHeader('Set-Cookie', ['a=1', 'b=2']);
          res.setHeader('X-Answer', '42');
          res.end(JSON.stringify({ method: req.method, url: req.url }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));

  const device = () => ({ ip: '127.0.0.1', username: 'admin', password: 'p@ss word', portMap: { 80: port } });

  it('sends GET with basic auth from the device credentials and returns status, headers and body', async () => {
    const result = await runSource(
      host,
      `function get_status(){
        D.device.http.get({ url: '/info?x=1', auth: 'basic' }, function (err, res, body) {
          D.success([
            D.createVariable('status', 'Status', res.statusCode),
            D.createVariable('cookies', 'Cookies', res.headers['set-cookie'].join(';')),
            D.createVariable('answer', 'Answer', res.headers['x-answer']),
            D.createVariable('body', 'Body', body),
          ]);
        });
      }`,
      { device: device() },
    );
    expect(result.status).toBe('success');
    expect(result.variables.map((v) => v.value)).toEqual(['200', 'a=1;b=2', '42', '{"method":"GET","url":"/info?x=1"}']);
    const request = seen.at(-1)!;
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from('admin:p@ss word').toString('base64')}`);
    expect(result.http).toHaveLength(1);
    expect(result.http[0]).toMatchObject({ method: 'GET', url: `http://127.0.0.1:${port}/info?x=1`, status: 200, error: null });
  });

  it('sends POST bodies (text, json, form) and the driver headers; options.username overrides the device', async () => {
    await runSource(
      host,
      `function get_status(){
        D.device.http.post({ url: '/a', body: 'raw text', headers: { 'X-Token': 't1' } }, function () {
          D.device.http.put({ url: '/b', json: { k: 1 } }, function () {
            D.device.http.post({ url: '/c', form: { a: 'x y', b: 2 }, auth: 'basic', username: 'other', password: 'pw' }, function () {
              D.device.http.delete({ url: '/d' }, function (err, res) { D.success(); });
            });
          });
        });
      }`,
      { device: device() },
    );
    const last = seen.slice(-4);
    expect(last.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/a', 'raw text'],
      ['PUT', '/b', '{"k":1}'],
      ['POST', '/c', 'a=x+y&b=2'],
      ['DELETE', '/d', ''],
    ]);
    expect(last[0].headers['x-token']).toBe('t1');
    expect(last[1].headers['content-type']).toBe('application/json');
    expect(last[2].headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(last[2].headers.authorization).toBe(`Basic ${Buffer.from('other:pw').toString('base64')}`);
  });

  it('fills ${username} and ${password} in the url, URL-encoded, and hides the password in the transcript', async () => {
    const result = await runSource(host, `function get_status(){ D.device.http.get({ url: '/login?u=\${username}&p=\${password}' }, function(){ D.success(); }); }`, {
      device: device(),
    });
    expect(seen.at(-1)!.url).toBe('/login?u=admin&p=p%40ss%20word');
    expect(result.http[0].url).toBe(`http://127.0.0.1:${port}/login?u=admin&p=***`);
  });

  it.each([
    ['http://evil.example/x', 'INVALID_URL'],
    ['//evil.example/x', 'INVALID_URL'],
    ['/a\\r\\nHost: evil', 'INVALID_URL'],
    ['/a\\\\b', 'INVALID_URL'],
    ['status', 'INVALID_URL'],
  ])('refuses url %s with %s and never sends it', async (url, code) => {
    const before = seen.length;
    const result = await runSource(host, `function get_status(){ D.device.http.get({ url: '${url}' }, function (err) { D.success([D.createVariable('code', 'Code', err && err.code)]); }); }`, {
      device: device(),
    });
    expect(result.variables[0].value).toBe(code);
    expect(seen.length).toBe(before);
  });

  it('reports connection refused, timeouts and oversized bodies to the callback with a code', async () => {
    const refused = await runSource(host, `function get_status(){ D.device.http.get({ url: '/', port: 1 }, function (err) { D.success([D.createVariable('c', 'C', err.code)]); }); }`, {
      device: { ip: '127.0.0.1' },
    });
    expect(refused.variables[0].value).toBe('ECONNREFUSED');
    const slow = await runSource(host, `function get_status(){ D.device.http.get({ url: '/slow', timeout: 200 }, function (err) { D.success([D.createVariable('c', 'C', err.code)]); }); }`, {
      device: device(),
    });
    expect(slow.variables[0].value).toBe('ETIMEDOUT');
    const big = await runSource(host, `function get_status(){ D.device.http.get({ url: '/big' }, function (err) { D.success([D.createVariable('c', 'C', err.code)]); }); }`, {
      device: device(),
      limits: { maxResponseBytes: 1000 },
    });
    expect(big.variables[0].value).toBe('BODY_TOO_LARGE');
  });

  it('bounds the number of requests in one run', async () => {
    const result = await runSource(
      host,
      `function get_status(){
        var codes = [];
        for (var i = 0; i < 3; i++) D.device.http.get({ url: '/n' + i }, function (err) {
          codes.push(err ? err.code : 'ok');
          if (codes.length === 3) D.success([D.createVariable('codes', 'Codes', codes.sort().join(','))]);
        });
      }`,
      { device: device(), limits: { maxHttpRequests: 2 } },
    );
    expect(result.variables[0].value).toBe('TOO_MANY_REQUESTS,ok,ok');
  });

  it('lets D.createExternalDevice reach allowed hosts only, with its own credentials', async () => {
    const allowed = await runSource(
      host,
      `function get_status(){
        var api = D.createExternalDevice('localhost', { username: 'cloud', password: 'key' });
        api.http.get({ url: '/ext', port: ${port}, auth: 'basic' }, function (err, res) { D.success([D.createVariable('s', 'S', err ? err.code : res.statusCode)]); });
      }`,
      { device: device() },
    );
    expect(allowed.variables[0].value).toBe('200');
    expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('cloud:key').toString('base64')}`);
    const denied = await runSource(host, `function get_status(){ D.createExternalDevice('example.com'); }`, { device: device() });
    expect(denied.status).toBe('failure');
    expect(denied.message).toContain('does not allow "example.com"');
  });
});
