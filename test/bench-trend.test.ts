// The line bench:soak judges memory growth on (bench/lib/trend.ts).
import { describe, expect, it } from 'vitest';
import { fitTrend } from '../bench/lib/trend.js';

describe('fitTrend', () => {
  it('recovers the slope and ends of points on a line', () => {
    const t = fitTrend([0, 10, 20, 30].map((x) => ({ x, y: 100 + 0.5 * x })))!;
    expect(t.slope).toBeCloseTo(0.5, 10);
    expect(t.start).toBeCloseTo(100, 10);
    expect(t.end).toBeCloseTo(115, 10);
    expect(t.growthPct).toBeCloseTo(15, 10);
    expect(t.scatter).toBeCloseTo(0, 10);
    expect(t.points).toBe(4);
  });

  it('is not swayed by one high last sample the way a two-sample comparison is', () => {
    // Flat at ~260 with scatter, the last sample high: first-to-last says +6.9 %, the line under 4 %.
    const ys = [260, 252, 266, 258, 263, 255, 262, 257, 278];
    const t = fitTrend(ys.map((y, i) => ({ x: i * 10_000, y })))!;
    expect(((278 - 260) / 260) * 100).toBeGreaterThan(6.9);
    expect(t.growthPct).toBeLessThan(4);
    expect(t.growthPct).toBeGreaterThan(0);
    expect(t.scatter).toBeGreaterThan(4);
  });

  it('sees a steady climb under scatter', () => {
    const ys = [200, 214, 206, 222, 216, 232, 226, 242];
    const t = fitTrend(ys.map((y, i) => ({ x: i * 10_000, y })))!;
    expect(t.slope * 10_000).toBeGreaterThan(5);
    expect(t.growthPct).toBeGreaterThan(15);
  });

  it('answers null when no line can be drawn', () => {
    expect(fitTrend([])).toBeNull();
    expect(fitTrend([{ x: 1, y: 2 }])).toBeNull();
    expect(fitTrend([{ x: 5, y: 1 }, { x: 5, y: 3 }])).toBeNull();
  });
});
