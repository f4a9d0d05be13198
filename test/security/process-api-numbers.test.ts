// P7–P8: every numeric path and query parameter of the Monitoring API, from its own OpenAPI
// document, sent values that overflow SQLite integers or JS numbers (huge, 1e309, 2^63,
// negative, fractional, not a number): each answers the documented error body (4xx) or an
// empty page, never 500. Read from the document, so a route added later is attacked too.
import { describe, expect, it } from 'vitest';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createAssociation } from '../../host/store/drivers/associations.js';
import { createCustomDriver } from '../../host/store/drivers/custom-drivers.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { createTcpSensor } from '../../host/store/monitoring/sensors.js';
import { startMonitoringFixture, TEST_API_KEY } from '../helpers/monitoring.js';

const api = await startMonitoringFixture();
// Entities with id 1, so every operation gets past its 404s to the queries that page and filter.
const agent = await ensureLocalAgent(api.store);
const device = await createDevice(api.store, agent.id, { displayName: 'pdu', ip: '127.0.0.1' });
const driver = await createCustomDriver(api.store, { name: 'd', code: 'function validate() { D.success(); }\nfunction get_status() { D.success(); }\nfunction custom_1() { D.success(); }' });
await createAssociation(api.store, { customDriverId: driver.id, agentId: agent.id, deviceId: device.id });
await createTcpSensor(api.store, device.id, { port: 80, status: 'UP' });

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: { type?: string | string[] };
}
interface BodySchema {
  properties?: Record<string, { type?: string | string[] }>;
}
type Operations = Record<string, { operationId: string; parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: BodySchema }> } }>;

const HOSTILE = ['1e309', '-1e309', '9223372036854775808', '18446744073709551616', '99999999999999999999999999', '9007199254740993', '-1', '-9223372036854775809', '1.5', 'NaN', 'Infinity', '0x10', ''];

function numeric(p: Parameter): boolean {
  const type = p.schema?.type;
  return type === 'integer' || type === 'number' || (Array.isArray(type) && (type.includes('integer') || type.includes('number')));
}

async function call(method: string, url: string, body = '{}'): Promise<{ status: number; body: string }> {
  const sendsBody = method === 'post' || method === 'put' || method === 'patch';
  const res = await fetch(url, {
    method: method.toUpperCase(),
    headers: { 'x-api-key': TEST_API_KEY, ...(sendsBody ? { 'content-type': 'application/json' } : {}) },
    ...(sendsBody ? { body } : {}),
  });
  return { status: res.status, body: await res.text() };
}

/** JSON number texts that parse to Infinity or past 2^53. */
const HOSTILE_JSON = ['1e309', '-1e309', '9223372036854775808', '123456789012345678901234567890', '1.5', '-1'];

describe('P7 numeric parameters of every operation', () => {
  it('P7 huge, negative, fractional and non-numbers in path and query parameters answer 4xx or an empty page, never 500', async () => {
    const doc = (await api.client.getOpenApiDefinition()) as { paths: Record<string, Operations> };
    const failures: string[] = [];
    let tried = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const params = op.parameters ?? [];
        const targets = params.filter((p) => (p.in === 'path' || p.in === 'query') && numeric(p));
        for (const target of targets) {
          for (const value of HOSTILE) {
            if (target.in === 'path' && value === '') continue;
            let url = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === target.name ? encodeURIComponent(value) : '1'));
            if (target.in === 'query') url += `?${target.name}=${encodeURIComponent(value)}`;
            const answer = await call(method, `${api.server.url}/public-api/v1${url}`);
            tried++;
            if (answer.status >= 500) failures.push(`${method.toUpperCase()} ${url} (${op.operationId}) → ${answer.status} ${answer.body.slice(0, 160)}`);
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(200);
    expect(failures).toEqual([]);
  }, 60_000);

  it('P8 numeric body fields sent as 1e309, 2^63 and 30-digit numbers answer 4xx, never 500', async () => {
    const doc = (await api.client.getOpenApiDefinition()) as { paths: Record<string, Operations> };
    const failures: string[] = [];
    let tried = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        const fields = Object.entries(schema?.properties ?? {}).filter(([, p]) => numeric({ name: '', in: 'query', schema: p }));
        const url = path.replace(/\{(\w+)\}/g, '1');
        for (const [field] of fields) {
          for (const value of HOSTILE_JSON) {
            const answer = await call(method, `${api.server.url}/public-api/v1${url}`, `{"${field}": ${value}}`);
            tried++;
            if (answer.status >= 500) failures.push(`${method.toUpperCase()} ${url} ${field}=${value} (${op.operationId}) → ${answer.status} ${answer.body.slice(0, 160)}`);
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  }, 60_000);
});
