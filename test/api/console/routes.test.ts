// The console's static files beside the API (host/api/console): the page and its bundled files
// are public with their content types and caching, the API's key check is untouched, and a
// missing build is said plainly.
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { consoleCsp, CSP_NONCE_PLACEHOLDER, consoleRoutes } from '../../../host/api/console/console-routes.js';
import { createMonitoringApi } from '../../../host/api/monitoring/server.js';
import { packagePath } from '../../../host/package-path.js';
import { openTestStore } from '../../helpers/store.js';

const KEY = 'console-routes-key';
const store = await openTestStore();
const apps: FastifyInstance[] = [];

async function appWith(dir?: string | null): Promise<FastifyInstance> {
  const app = await createMonitoringApi({ store, apiKeys: [KEY], extraRoutes: async (root) => void (await root.register(consoleRoutes, dir === undefined ? {} : { dir })) });
  apps.push(app);
  return app;
}

afterAll(async () => {
  for (const app of apps) await app.close();
  await store.close();
});

describe('console routes', () => {
  it('serves the built page at / with no-cache and the console policy, and its files as immutable', async () => {
    const app = await appWith();
    const page = await app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    // A nonce of its own in every answer, in the policy (styles only) and in the page's meta tag.
    const nonce = /<meta name="csp-nonce" content="([A-Za-z0-9+/=]{24})">/.exec(page.body)?.[1];
    expect(nonce).toBeDefined();
    expect(page.headers['content-security-policy']).toBe(consoleCsp(nonce!));
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self';/);
    const again = await app.inject({ method: 'GET', url: '/' });
    expect(again.body).not.toContain(nonce!);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const built = readFileSync(path.join(packagePath('dist/console')!, 'index.html'), 'utf8');
    expect(page.body).toBe(built.replace(CSP_NONCE_PLACEHOLDER, nonce!));
    const files = [...page.body.matchAll(/(?:src|href)="(console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(files.map((f) => path.extname(f)).sort()).toEqual(['.css', '.js']);
    for (const file of files) {
      const asset = await app.inject({ method: 'GET', url: `/${file}` });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toBe(file.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      // Bundled: nothing is loaded from another origin.
      expect(asset.body).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\//i);
      const head = await app.inject({ method: 'HEAD', url: `/${file}` });
      expect(head.statusCode).toBe(200);
    }
    const missing = await app.inject({ method: 'GET', url: '/console/assets/nothing.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
  });

  it('leaves the API behind its key: 401 without one, data with one', async () => {
    const app = await appWith();
    const refused = await app.inject({ method: 'GET', url: '/public-api/v1/agent' });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const wrong = await app.inject({ method: 'GET', url: '/public-api/v1/agent', headers: { 'x-api-key': 'wrong-key-123' } });
    expect(wrong.statusCode).toBe(401);
    const ok = await app.inject({ method: 'GET', url: '/public-api/v1/agent', headers: { 'x-api-key': KEY } });
    expect(ok.statusCode).toBe(200);
  });

  it('serves a given folder, and says plainly when the console was not built', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-console-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>x</title>');
    writeFileSync(path.join(dir, 'assets', 'app-1.js'), 'export {};');
    writeFileSync(path.join(dir, 'assets', 'notes.txt'), 'not served');
    const app = await appWith(dir);
    expect((await app.inject({ method: 'GET', url: '/' })).body).toBe('<!doctype html><title>x</title>');
    expect((await app.inject({ method: 'GET', url: '/console/assets/app-1.js' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/console/assets/notes.txt' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/console/assets/..%2Findex.html' })).statusCode).toBe(404);

    const bare = await appWith(path.join(dir, 'nowhere'));
    const page = await bare.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('npm run build');
  });
});
