// A bounded window of recent samples (the lateness of runs, ms) and its summary, for the agent's
// scheduler and the scale-out queue's figures alike: memory stays fixed however long the agent
// runs, and percentiles describe the recent past rather than the whole uptime.

export interface SampleSummary {
  /** Samples ever recorded (the window holds at most the last `capacity`). */
  count: number;
  /** Over the window; 0 when there is no sample. */
  p50: number;
  p99: number;
  max: number;
}

export class SampleWindow {
  private readonly values: number[] = [];
  private next = 0;
  private total = 0;

  constructor(readonly capacity: number) {}

  add(value: number): void {
    if (this.values.length < this.capacity) this.values.push(value);
    else this.values[this.next] = value;
    this.next = (this.next + 1) % this.capacity;
    this.total += 1;
  }

  summary(): SampleSummary {
    if (this.values.length === 0) return { count: 0, p50: 0, p99: 0, max: 0 };
    const sorted = [...this.values].sort((a, b) => a - b);
    return { count: this.total, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1]! };
  }
}

/** Nearest-rank percentile of an ascending, non-empty list. */
export function percentile(sorted: readonly number[], fraction: number): number {
  const rank = Math.ceil(fraction * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}
