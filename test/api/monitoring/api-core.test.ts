// The Monitoring API's common behaviour: the API key, the error body, the OpenAPI document,
// and the client's typed errors.
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { MonitoringAuthError, MonitoringClient, MonitoringConnectionError, MonitoringNotFoundError, clientOperationIds } from '../../../host/api/monitoring/client/index.js';
import { startMonitoringFixture, TEST_API_KEY } from '../../helpers/monitoring.js';
import { ensureLocalAgent } from '../../../host/store/fleet/agents.js';

const api = await startMonitoringFixture();

describe('X-Api-Key', () => {
  it('answers 401 with a JSON body without a key or with a wrong one', async () => {
    const none = await request(`${api.server.url}/public-api/v1/agent`);
    expect(none.statusCode).toBe(401);
    expect(await none.body.json()).toEqual({ status: 401, code: 'UNAUTHORIZED', message: 'missing X-Api-Key header' });
    const wrong = new MonitoringClient({ baseUrl: api.server.url, apiKey: 'nope' });
    await expect(wrong.listAgents()).rejects.toBeInstanceOf(MonitoringAuthError);
    // The OpenAPI document holds no data: served without a key (browser clients load it first).
    await expect(wrong.getOpenApiDefinition()).resolves.toHaveProperty('paths');
    await wrong.close();
  });

  it('answers an unknown path with a JSON 404 naming it', async () => {
    const res = await request(`${api.server.url}/public-api/v1/no/such/thing?x=1`, { headers: { 'x-api-key': TEST_API_KEY } });
    expect(res.statusCode).toBe(404);
    expect(await res.body.json()).toMatchObject({ status: 404, code: 'NO_SUCH_OPERATION', message: 'no operation at GET /public-api/v1/no/such/thing' });
  });
});

describe('bad requests', () => {
  const post = (path: string, body: string, type = 'application/json') =>
    request(`${api.server.url}/public-api/v1${path}`, { method: 'POST', body, headers: { 'x-api-key': TEST_API_KEY, 'content-type': type } });

  it('answers a body that is not JSON with a 400 JSON body', async () => {
    const agent = await ensureLocalAgent(api.store);
    const res = await post(`/agent/${agent.id}/device/external-host`, '{"host": "a.example",');
    expect(res.statusCode).toBe(400);
    const body = (await res.body.json()) as { status: number; code: string; message: string };
    expect(body).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(body.message).toMatch(/JSON/);
  });

  it('answers a body of another media type with 415', async () => {
    const agent = await ensureLocalAgent(api.store);
    const res = await post(`/agent/${agent.id}/device/external-host`, 'host=a.example', 'application/x-www-form-urlencoded');
    expect(res.statusCode).toBe(415);
    expect(await res.body.json()).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers a failure of its own with a 500 that shows no stack or internals', async () => {
    const broken = await startMonitoringFixture();
    await broken.store.close(); // every query now throws inside better-sqlite3
    const res = await request(`${broken.server.url}/public-api/v1/agent`, { headers: { 'x-api-key': TEST_API_KEY } });
    expect(res.statusCode).toBe(500);
    const text = await res.body.text();
    expect(JSON.parse(text)).toEqual({ status: 500, code: 'INTERNAL_ERROR', message: 'the server failed to answer this request; see its log' });
    expect(text).not.toMatch(/at \w|better-sqlite3|node_modules/);
  });
});

describe('the OpenAPI document', () => {
  it('lists every operation the client has, with the API key scheme', async () => {
    const doc = (await api.client.getOpenApiDefinition()) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>>; components: { securitySchemes: unknown } };
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.components.securitySchemes).toEqual({ ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } });
    const served = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(served).toContain('getOpenApiDefinition');
    expect([...served].sort()).toEqual([...clientOperationIds].sort());
  });
});

describe('the client', () => {
  it('accepts a base URL with or without /public-api/v1', () => {
    expect(new MonitoringClient({ baseUrl: 'https://api.example.com/', apiKey: 'k' }).baseUrl).toBe('https://api.example.com/public-api/v1');
    expect(new MonitoringClient({ baseUrl: 'http://127.0.0.1:9/public-api/v1', apiKey: 'k' }).baseUrl).toBe('http://127.0.0.1:9/public-api/v1');
  });

  it('throws a connection error naming the operation when the server is unreachable', async () => {
    const down = new MonitoringClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });
    const error = await down.getOpenApiDefinition().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MonitoringConnectionError);
    expect((error as MonitoringConnectionError).code).toBe('ECONNREFUSED');
    expect((error as Error).message).toContain('getOpenApiDefinition');
    await down.close();
  });

  it('exposes 404s as MonitoringNotFoundError', () => {
    expect(new MonitoringNotFoundError('getAgent', 404, { message: 'agent 9 not found' }).message).toBe('getAgent failed with HTTP 404: agent 9 not found');
  });
});
