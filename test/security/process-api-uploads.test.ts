// P5–P6, P9: the Monitoring API against uploads and paging meant to stall or break it. A driver
// with 20,000 entry points, or more source than the bound, is refused at once with the error
// body (the inspection is linear and bounded, so the event loop keeps answering); page numbers
// past every page answer 422 or an empty page, never 500.
import { describe, expect, it } from 'vitest';
import { MAX_DRIVER_SOURCE_CHARS } from '../../host/store/drivers/custom-drivers.js';
import { MAX_ENTRY_POINTS } from '../../host/store/drivers/driver-inspection.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { startMonitoringFixture, TEST_API_KEY } from '../helpers/monitoring.js';

const api = await startMonitoringFixture();
const agent = await ensureLocalAgent(api.store);

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${api.server.url}/public-api/v1${path}`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: performance.now() - started };
}

/** Largest gap between ticks of a 10 ms interval while `work` runs: how long the event loop was blocked. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return worst;
}

function entryPoints(count: number, style: (i: number) => string): string {
  let code = 'function validate() { D.success(); }\nfunction get_status() { D.success(); }\n';
  for (let i = 1; i <= count; i++) code += style(i);
  return code;
}

describe('P5 custom-driver uploads that would stall the API', () => {
  it.each([
    ['documented functions', (i: number) => `/** @label L${i}\n * @documentation D${i} */\nfunction custom_${i}() { D.success(); }\n`],
    ['bare functions on one line', (i: number) => `function custom_${i}(){}`],
    ['var = function', (i: number) => `var custom_${i} = function () {};\n`],
  ])('P5 20,000 entry points (%s): 422 naming the bound, within a second, the API answering meanwhile', async (_name, style) => {
    // Cut to the source bound, so it is the entry points that are refused.
    const code = entryPoints(20_000, style).slice(0, MAX_DRIVER_SOURCE_CHARS);
    let answer!: Awaited<ReturnType<typeof post>>;
    // The test's own server shares this event loop: a stall here is the API's.
    const stall = await longestStall(async () => {
      answer = await post('/custom-driver', { name: `many-${_name}`, code });
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });
    expect(String(answer.body.message)).toMatch(new RegExp(`declares \\d+ top-level entry points .*at most ${MAX_ENTRY_POINTS}`));
    expect(answer.ms).toBeLessThan(1_500);
    expect(stall).toBeLessThan(1_000);
    const listed = await fetch(`${api.server.url}/public-api/v1/custom-driver`, { headers: { 'x-api-key': TEST_API_KEY } });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).not.toContain(`many-${_name}`);
  }, 30_000);

  it('P5 source past the bound: 422 naming it, for a new driver and a new version', async () => {
    const code = `function validate() { D.success(); }\nfunction get_status() { D.success(); }\n//${'x'.repeat(MAX_DRIVER_SOURCE_CHARS)}`;
    const created = await post('/custom-driver', { name: 'huge', code });
    expect(created.status).toBe(422);
    expect(String(created.body.message)).toContain(`code: is at most ${MAX_DRIVER_SOURCE_CHARS} characters (got ${code.length})`);
    const small = await post('/custom-driver', { name: 'small', code: code.slice(0, 200) });
    expect(small.status).toBe(201);
    const res = await fetch(`${api.server.url}/public-api/v1/custom-driver/${small.body.id}`, {
      method: 'PUT',
      headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(res.status).toBe(422);
  });

  it('P6 a driver at the bounds is stored and inspected within two seconds', async () => {
    const code = entryPoints(MAX_ENTRY_POINTS - 2, (i) => `/** @label Action ${i} */\nfunction custom_${(i % 30) + 1}() { D.success(); }\n${'// filler\n'.repeat(400)}`);
    expect(code.length).toBeLessThan(MAX_DRIVER_SOURCE_CHARS);
    const answer = await post('/custom-driver', { name: 'at-bounds', code });
    expect(answer.status).toBe(201);
    expect(answer.ms).toBeLessThan(2_000);
  });
});

describe('P9 paging past the end', () => {
  const get = async (query: string) => {
    const res = await fetch(`${api.server.url}/public-api/v1/agent?${query}`, { headers: { 'x-api-key': TEST_API_KEY } });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  it('P9 a page past the last is empty; a page number past 2^31-1 or not finite is 422 with the located error', async () => {
    expect(await get('page_number=2147483647&page_size=100')).toEqual({ status: 200, body: [] });
    expect((await get('page_number=0')).body).toEqual([expect.objectContaining({ id: agent.id })]);
    for (const huge of ['2147483648', '9223372036854775807', '1e309', '1e20']) {
      const answer = await get(`page_number=${huge}`);
      expect(answer.status, huge).toBe(422);
      expect(answer.body).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', detail: [{ loc: ['query', 'page_number'] }] });
    }
  });
});
