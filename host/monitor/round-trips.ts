// Round-trip times of a set of probes summarised as one RTD sample (min, max, median, packets
// sent and lost), the shape the RTD history keeps.
import type { RtdSample } from '../store/monitoring/rtd-speed.js';

/** rtts: one entry per probe sent, null for a probe nothing answered. */
export function summariseRoundTrips(rtts: ReadonlyArray<number | null>): Omit<RtdSample, 'timestamp'> {
  const answered = rtts.filter((t): t is number => t !== null).sort((a, b) => a - b);
  const n = answered.length;
  const median = n === 0 ? null : n % 2 === 1 ? answered[(n - 1) / 2]! : (answered[n / 2 - 1]! + answered[n / 2]!) / 2;
  return {
    minMs: n === 0 ? null : answered[0]!,
    maxMs: n === 0 ? null : answered[n - 1]!,
    medianMs: median,
    sentPacketCount: rtts.length,
    lostPacketCount: rtts.length - n,
  };
}
