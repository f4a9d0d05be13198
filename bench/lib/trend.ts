// A least-squares line through a bench's samples, so that "is memory growing?" is judged on
// the trend of every sample after warm-up rather than on two samples, each of which can sit
// anywhere in the scatter that RSS readings have (the allocator, isolates' heaps, timing).

export interface Trend {
  /** Samples the line was fitted to. */
  points: number;
  /** Change of y per unit of x. */
  slope: number;
  /** y of the line at the first sample's x. */
  start: number;
  /** y of the line at the last sample's x. */
  end: number;
  /** Growth along the line from the first sample to the last, percent of `start`. */
  growthPct: number;
  /** Root mean square distance of the samples from the line: the scatter. */
  scatter: number;
}

/** The least-squares line through (x, y) points; null with fewer than 2 points or one x only. */
export function fitTrend(points: ReadonlyArray<{ x: number; y: number }>): Trend | null {
  const n = points.length;
  if (n < 2) return null;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - meanX) ** 2;
    sxy += (p.x - meanX) * (p.y - meanY);
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  const at = (x: number) => meanY + slope * (x - meanX);
  const start = at(points[0]!.x);
  const end = at(points[n - 1]!.x);
  const scatter = Math.sqrt(points.reduce((sum, p) => sum + (p.y - at(p.x)) ** 2, 0) / n);
  return { points: n, slope, start, end, growthPct: start === 0 ? 0 : ((end - start) / start) * 100, scatter };
}
