// API keys, tokens and passwords a cloud driver sends the way real drivers do (Meraki's
// X-Cisco-Meraki-API-Key, Authorization: Bearer, an X-Auth-Token got from a JSON login, an
// api_key query parameter, a key sent base64-encoded under a harmless header name), logs or
// throws never leave in clear: not in the --record file, the full transcript, the CLI's -v
// output, the run stored by --report, nor the Monitoring API's answers. What is not secret
// stays readable, and the recording still replays.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSecretField, isSecretHeader, isSecretName, maskBodyFields, maskUrlQuery, parameterSecrets } from '../../../host/secrets/secret-names.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { listDeviceRuns } from '../../../host/store/runs/runs.js';
import { openStore } from '../../../host/store/store.js';
import { runSource, useHost } from '../../helpers/host.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';

const API_KEY = '6bec40cf957de430a6f1f2baa056b99a4fac9ea0'; // Meraki-style, as in the issue
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.sg-Zx81_q';
const PASSWORD = 'Cl0ud pass/+!&';
const QUERY_KEY = 'qk-9a8b7c6d5e4f3a2b';
const CLIENT_KEY = 'ck:77f0e1d2c3b4a596';
/** Made by the cloud at login: no parameter holds it; the run learns it from the "token" field. */
const TOKEN = 'tok-5f2e9a7c81d4b3e6a0';

const SECRETS = { API_KEY, BEARER, PASSWORD, QUERY_KEY, CLIENT_KEY, TOKEN };

/** Every form a secret may take: plain, URL- and form-encoded, JSON-escaped, base64 (padded or not, url-safe). */
function forms(secret: string): string[] {
  const base64 = Buffer.from(secret).toString('base64');
  return [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(secret).toString('base64url'),
  ];
}

function expectNoSecret(text: string, where: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) {
    for (const form of forms(secret)) expect(text.includes(form), `${where} holds ${name} as ${JSON.stringify(form)}`).toBe(false);
  }
}

// cloudAddress is the address dialled: a parameter, but not a secret (it is in every url's origin).
const PARAMETERS = { apiKey: API_KEY, bearer: BEARER, password: PASSWORD, queryKey: QUERY_KEY, clientKey: CLIENT_KEY, site: 'hq', perPage: 5, cloudAddress: '127.0.0.1' };

/** A cloud API that checks every credential the way the real ones do, and echoes some back. */
async function startCloud(): Promise<{ port: number; server: Server; seen: Array<{ url: string; headers: IncomingMessage['headers']; body: string }> }> {
  const seen: Array<{ url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ url: req.url!, headers: req.headers, body });
      const url = new URL(req.url!, 'http://cloud');
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      switch (url.pathname) {
        case '/api/v1/organizations':
          return req.headers['x-cisco-meraki-api-key'] === API_KEY ? json(200, [{ id: '549236', name: 'Acme' }]) : json(401, { errors: ['Invalid API key'] });
        case '/api/v2/me':
          return req.headers.authorization === `Bearer ${BEARER}` ? json(200, { user: 'ops' }) : json(401, { error: 'bad bearer' });
        case '/api/login': {
          const login = JSON.parse(body) as { username: string; password: string };
          return login.password === PASSWORD ? json(200, { token: TOKEN, expires: 3600 }) : json(401, { error: 'bad login' });
        }
        case '/api/status':
          // Devices echo what they were sent, under names that are not a secret's.
          return req.headers['x-auth-token'] === TOKEN ? json(200, { temp: 41, note: `served for ${TOKEN}` }) : json(401, { error: 'bad token' });
        case '/api/search':
          return url.searchParams.get('api_key') === QUERY_KEY ? json(200, { hits: 3, debug: `you asked with api_key=${QUERY_KEY}` }) : json(401, { error: 'bad key' });
        case '/api/client':
          return req.headers['x-client'] === Buffer.from(CLIENT_KEY).toString('base64') ? json(200, { plan: 'pro' }) : json(401, { error: 'bad client' });
        default:
          return json(404, { error: 'no such route' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, seen };
}

const DRIVER = `
function fail(step, err, res) {
  console.error(step + ' failed: ' + (err ? err.message : res.statusCode));
  D.failure(D.errorType.AUTHENTICATION_ERROR);
}
function get_status() {
  var apiKey = D.getParameter('apiKey');
  console.log('using key ' + apiKey + ' for site ' + D.getParameter('site'));
  D.device.http.get({ url: '/api/v1/organizations?perPage=' + D.getParameter('perPage'), headers: { 'X-Cisco-Meraki-API-Key': apiKey }, json: true }, function (err, res, orgs) {
    if (err || res.statusCode !== 200) return fail('organizations', err, res);
    D.device.http.get({ url: '/api/v2/me', headers: { Authorization: 'Bearer ' + D.getParameter('bearer') } }, function (err, res) {
      if (err || res.statusCode !== 200) return fail('me', err, res);
      var login = JSON.stringify({ username: 'admin', password: D.getParameter('password') });
      D.device.http.post({ url: '/api/login', body: login, headers: { 'Content-Type': 'application/json' } }, function (err, res, body) {
        if (err || res.statusCode !== 200) return fail('login', err, res);
        var token = JSON.parse(body).token;
        console.log('logged in with token ' + token);
        D.device.http.get({ url: '/api/status', headers: { 'X-Auth-Token': token } }, function (err, res, body) {
          if (err || res.statusCode !== 200) return fail('status', err, res);
          var temp = JSON.parse(body).temp;
          D.device.http.get('/api/search?q=fans&api_key=' + encodeURIComponent(D.getParameter('queryKey')), function (err, res, body) {
            if (err || res.statusCode !== 200) return fail('search', err, res);
            var encoded = D._unsafe.buffer.from(D.getParameter('clientKey')).toString('base64');
            D.device.http.get({ url: '/api/client', headers: { 'X-Client': encoded } }, function (err, res, body) {
              if (err || res.statusCode !== 200) return fail('client', err, res);
              console.warn('client header was ' + encoded);
              D.success([
                D.createVariable('org', 'Organization', orgs[0].name),
                D.createVariable('temp', 'Temperature', temp, 'C', D.valueType.NUMBER),
                D.createVariable('plan', 'Plan', JSON.parse(body).plan),
              ]);
            });
          });
        });
      });
    });
  });
}
/**
 * @label Rotate
 */
function custom_1() {
  D.device.http.get({ url: '/api/v2/me', headers: { Authorization: 'Bearer ' + D.getParameter('bearer') } }, function () {
    throw new Error('rotation refused for key ' + D.getParameter('apiKey'));
  });
}
`;

const work = mkdtempSync(path.join(tmpdir(), 'driverbox-secrets-'));
let cloud: Awaited<ReturnType<typeof startCloud>>;
beforeAll(async () => {
  cloud = await startCloud();
});
afterAll(() => new Promise<void>((resolve) => cloud.server.close(() => resolve())));

const device = () => ({ ip: '127.0.0.1', portMap: { 80: cloud.port } });

describe('a run with the full transcript and a recording', () => {
  const host = useHost({ threads: 1 });
  const file = path.join(work, 'cloud.json');

  it('masks every secret in the record file, the transcript, logs and warnings; the rest stays', async () => {
    const result = await runSource(host, DRIVER, { filename: 'cloud.js', device: device(), parameters: PARAMETERS, transcript: 'full', record: file });
    expect(result.status, `${result.message} ${JSON.stringify(result.logs)}`).toBe('success');
    expect(result.variables.map((v) => v.value)).toEqual(['Acme', '41', 'pro']);
    // The cloud got every credential in clear: the redaction is only in what driverbox keeps.
    expect(cloud.seen.some((s) => s.headers['x-cisco-meraki-api-key'] === API_KEY)).toBe(true);

    const transcript = JSON.stringify(result);
    expectNoSecret(transcript, 'the result');
    const exchange = (pathname: string) => result.http.find((e) => new URL(e.url).pathname === pathname)!;
    expect(exchange('/api/v1/organizations').url).toBe(`http://127.0.0.1:${cloud.port}/api/v1/organizations?perPage=5`);
    expect(exchange('/api/v1/organizations').request!.headers['x-cisco-meraki-api-key']).toBe('***');
    expect(exchange('/api/v1/organizations').response!.body).toBe('[{"id":"549236","name":"Acme"}]');
    expect(exchange('/api/v2/me').request!.headers.authorization).toBe('Bearer ***');
    expect(exchange('/api/login').request!.body).toBe('{"username":"admin","password":"***"}');
    expect(exchange('/api/login').response!.body).toBe('{"token":"***","expires":3600}');
    expect(exchange('/api/status').request!.headers['x-auth-token']).toBe('***');
    expect(exchange('/api/status').response!.body).toBe('{"temp":41,"note":"served for ***"}');
    expect(exchange('/api/search').url).toMatch(/\/api\/search\?q=fans&api_key=\*\*\*$/);
    expect(exchange('/api/client').request!.headers['x-client']).toBe('***');
    expect(result.logs.map((l) => l.message)).toEqual(['using key *** for site hq', 'logged in with token ***', 'client header was ***']);

    const recording = readFileSync(file, 'utf8');
    expectNoSecret(recording, 'the recording');
    expect(recording).toContain('"x-cisco-meraki-api-key": "***"');
    expect(recording).toContain('Acme');
    expect(recording).toContain('perPage=5');
  });

  it('replays from that recording, with the same parameters', async () => {
    const replay = await runSource(host, DRIVER, { filename: 'cloud.js', parameters: PARAMETERS, replay: file, transcript: 'full' });
    expect(replay.status, `${replay.message} ${JSON.stringify(replay.http.map((e) => e.errorMessage))}`).toBe('success');
    expect(replay.variables.map((v) => v.value)).toEqual(['Acme', '41', 'pro']);
    expect(replay.warnings.filter((w) => w.startsWith('replay:'))).toEqual([]);
    expectNoSecret(JSON.stringify(replay), 'the replay result');
  });

  it("an uncaught error's message holding a parameter is masked too", async () => {
    const result = await runSource(host, DRIVER, { filename: 'cloud.js', action: 'custom_1', device: device(), parameters: PARAMETERS, transcript: 'full' });
    expect(result.status).toBe('failure');
    expect(result.message).toMatch(/^Error: rotation refused for key \*\*\*\n\s+at cloud\.js:\d+:\d+/);
    expectNoSecret(JSON.stringify(result), 'the failed result');
  });
});

describe('the CLI: driverbox run -v --record --report', () => {
  const exec = promisify(execFile);
  const bin = path.resolve('bin/driverbox.js');
  const dir = mkdtempSync(path.join(work, 'cli-'));
  const store = path.join(dir, 'runs.db');
  const record = path.join(dir, 'cli-recording.json');
  let output = '';

  beforeAll(async () => {
    writeFileSync(path.join(dir, 'cloud.js'), DRIVER);
    writeFileSync(path.join(dir, 'params.json'), JSON.stringify(PARAMETERS));
    const { stdout, stderr } = await exec(
      process.execPath,
      [bin, 'run', 'cloud.js', '--params', 'params.json', '--device-ip', '127.0.0.1', '--port-map', `80=${cloud.port}`, '-v', '--record', record, '--report', '--store', store],
      { cwd: dir, env: { PATH: process.env.PATH, NO_COLOR: '1', HOME: dir } },
    );
    output = `${stdout}\n${stderr}`;
  });

  it('prints every exchange with headers and bodies, and no secret', () => {
    expectNoSecret(output, 'the -v output');
    const lines = output.split('\n').map((l) => l.trim());
    expect(lines).toContain('> x-cisco-meraki-api-key: ***');
    expect(lines).toContain('> authorization: Bearer ***');
    expect(lines).toContain('> x-auth-token: ***');
    expect(lines).toContain('> {"username":"admin","password":"***"}');
    expect(lines.some((l) => l.startsWith(`GET http://127.0.0.1:${cloud.port}/api/search?q=fans&api_key=*** → 200`))).toBe(true);
    expect(lines.some((l) => l.includes('using key *** for site hq'))).toBe(true);
  });

  it('writes a recording and a stored run without them', async () => {
    expectNoSecret(readFileSync(record, 'utf8'), 'the CLI recording');
    const db = await openStore({ path: store });
    try {
      const runs = await db.statement<[], { id: number }>('SELECT id FROM runs').all();
      expect(runs).toHaveLength(1);
      const device = (await db.statement<[], { id: number }>('SELECT id FROM devices').get())!;
      const stored = JSON.stringify(await listDeviceRuns(db, device.id));
      expectNoSecret(stored, 'the stored run');
      expect(stored).toContain('using key *** for site hq');
      expect(stored).toContain('/api/v1/organizations?perPage=5');
    } finally {
      await db.close();
    }
  });
});

describe('the Monitoring API: an action run for an association with the keys as parameters', () => {
  const host = useHost({ threads: 1 });

  it('answers, stores and logs the runs without the secrets', async () => {
    const api = await startMonitoringFixture({ host });
    const agent = await createAgentRecord(api.store, { displayName: 'cloud' });
    const dev = await createDevice(api.store, agent.id, { displayName: 'meraki', ip: '127.0.0.1', portMap: { 80: cloud.port } });
    const driver = await api.client.createCustomDriver({
      name: 'cloud',
      code: `function validate() { D.success(); }\n${DRIVER}`,
      parameters: Object.entries(PARAMETERS).map(([name, value]) => ({ name, value_type: typeof value === 'number' ? 'NUMBER' : 'STRING' })),
    });
    const ids = new Map(driver.parameters!.map((p) => [p.name, p.id]));
    await api.client.createCustomDriverAssociation(driver.id, agent.id, dev.id, {
      parameters: Object.entries(PARAMETERS).map(([name, value]) => ({ custom_driver_parameter_id: ids.get(name)!, value })),
    });

    const status = await api.client.executeCustomDriverAction(driver.id, agent.id, dev.id, 0);
    expect(status.outcome, JSON.stringify(status)).toBe('success');
    expect(status.log).toContain('log: using key *** for site hq');
    const rotate = await api.client.executeCustomDriverAction(driver.id, agent.id, dev.id, 1);
    expect(rotate.outcome).toBe('failure');
    expect(rotate.errorMessage).toMatch(/^Error: rotation refused for key \*\*\*/);
    expectNoSecret(JSON.stringify([status, rotate]), 'the API answers');

    const stored = JSON.stringify(await listDeviceRuns(api.store, dev.id));
    expect(stored).toContain('rotation refused for key ***');
    expectNoSecret(stored, 'the runs stored by the API');
    expectNoSecret(JSON.stringify(await api.client.getAgentActivityLog(agent.id)), 'the activity log');
  });
});

describe('the rules', () => {
  it('knows secret names by what they contain, and short ones whole', () => {
    for (const name of ['X-Cisco-Meraki-API-Key', 'X-Auth-Token', 'x-api-key', 'api_key', 'apikey', 'accessToken', 'client_secret', 'JSESSIONID', 'Password', 'passwd', 'X-Signature', 'credentials', '_sid', 'pwd', 'csrf_token', 'community']) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['perPage', 'q', 'name', 'keep-alive', 'content-type', 'user', 'username', 'site', 'inside']) expect(isSecretName(name), name).toBe(false);
    expect(isSecretHeader('WWW-Authenticate')).toBe(false); // a challenge: a Digest driver needs it
    expect(isSecretField('key')).toBe(false); // {"key": "cpu", "value": 12}
    expect(isSecretField('apiKey')).toBe(true);
  });

  it('masks secret-named fields of JSON, XML and form bodies, and query parameters; learns their values', () => {
    const learned: string[] = [];
    expect(maskBodyFields('{"user":"admin", "password" : "p4ss-w0rd!", "expires": 3600, "list":[{"key":"cpu","value":"12"}]}', learned)).toBe(
      '{"user":"admin", "password" : "***", "expires": 3600, "list":[{"key":"cpu","value":"12"}]}',
    );
    expect(maskBodyFields('<s:Body><u>admin</u><ns:SessionId a="1">abc-123-def-456</ns:SessionId></s:Body>', learned)).toBe(
      '<s:Body><u>admin</u><ns:SessionId a="1">***</ns:SessionId></s:Body>',
    );
    expect(maskBodyFields('user=admin&pass=s%20cret+1&lang=en', learned)).toBe('user=admin&pass=***&lang=en');
    expect(maskUrlQuery('https://h/a/b?x=1&api_key=qk%2Fvalue-1#frag', learned)).toBe('https://h/a/b?x=1&api_key=***#frag');
    expect(learned).toEqual(['p4ss-w0rd!', 'abc-123-def-456', 's cret 1', 'qk/value-1']);
  });

  it('counts string parameters of 6 characters or more, lists, and secret-named ones at any length', () => {
    expect(
      parameterSecrets({
        apiKey: 'k1',
        site: 'hq',
        interface: 'eth0',
        hostName: 'nas.example',
        port: 8443,
        vms: ['web-01', 'db', 'backup-02'],
        settings: { mode: 'advanced', auth: { user: 'u', token: 'tok' } },
      }),
    ).toEqual(['k1', 'nas.example', 'web-01', 'backup-02', 'u', 'tok']);
  });
});
