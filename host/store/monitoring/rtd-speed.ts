// Round-trip delay samples of devices and speed-test samples of agents. RTD samples come
// from the TCP prober (each connect is a measured round trip, see host/monitor/prober.ts) or
// from recordRtdSample; speed samples only from recordSpeedSample (driverbox runs no speed test).
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';
import { WEEK_MS } from '../db/time.js';

export interface RtdSample {
  timestamp: number;
  /** Round-trip times in ms; null when every packet of the sample was lost. */
  minMs: number | null;
  maxMs: number | null;
  medianMs: number | null;
  sentPacketCount: number;
  lostPacketCount: number;
}

export interface RtdStatistics {
  deviceId: number;
  /** Time of the latest sample. */
  timestamp: number;
  /** Averages over the week before now (the baseline). */
  avgMinMs: number | null;
  avgMaxMs: number | null;
  avgMedianMs: number | null;
  latestMedianMs: number | null;
  latestSentPacketCount: number;
  latestLostPacketCount: number;
}

export interface SpeedSample {
  timestamp: number;
  downloadBps: number;
  uploadBps: number;
}

interface RtdDbRow {
  device_id: number;
  timestamp: number;
  min_ms: number | null;
  max_ms: number | null;
  median_ms: number | null;
  sent_packet_count: number;
  lost_packet_count: number;
}

function rtdFromDb(row: RtdDbRow): RtdSample {
  return {
    timestamp: row.timestamp,
    minMs: row.min_ms,
    maxMs: row.max_ms,
    medianMs: row.median_ms,
    sentPacketCount: row.sent_packet_count,
    lostPacketCount: row.lost_packet_count,
  };
}

export async function recordRtdSample(store: Store, deviceId: number, sample: Omit<RtdSample, 'timestamp'> & { timestamp?: number }): Promise<void> {
  const { sentPacketCount: sent, lostPacketCount: lost } = sample;
  if (!Number.isInteger(sent) || !Number.isInteger(lost) || sent < 0 || lost < 0 || lost > sent) {
    throw new StoreError('INVALID', `an RTD sample needs 0 <= lost (${lost}) <= sent (${sent}), both integers`);
  }
  await store
    .statement(
      'INSERT INTO rtd_samples (device_id, timestamp, min_ms, max_ms, median_ms, sent_packet_count, lost_packet_count) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    .run(deviceId, sample.timestamp ?? store.now(), sample.minMs, sample.maxMs, sample.medianMs, sent, lost);
}

export async function deviceRtdHistory(store: Store, deviceId: number, from: number, to: number): Promise<RtdSample[]> {
  return (await store
    .statement<[number, number, number], RtdDbRow>(
      'SELECT * FROM rtd_samples WHERE device_id = ? AND timestamp BETWEEN ? AND ? ORDER BY timestamp, rowid',
    )
    .all(deviceId, from, to))
    .map(rtdFromDb);
}

/** One entry per device of the agent that has RTD samples: the latest sample and the week's averages. */
export async function agentRtdStatistics(store: Store, agentId: number): Promise<RtdStatistics[]> {
  const since = store.now() - WEEK_MS;
  const rows = await store
    .statement<
      [number, number],
      RtdDbRow & { avg_min: number | null; avg_max: number | null; avg_median: number | null }
    >(
      `SELECT latest.*, week.avg_min, week.avg_max, week.avg_median
         FROM (SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.device_id ORDER BY r.timestamp DESC, r.rowid DESC) AS rank
                 FROM rtd_samples r JOIN devices d ON d.id = r.device_id WHERE d.agent_id = ?) AS latest
         LEFT JOIN (SELECT device_id, AVG(min_ms) AS avg_min, AVG(max_ms) AS avg_max, AVG(median_ms) AS avg_median
                      FROM rtd_samples WHERE timestamp >= ? GROUP BY device_id) AS week ON week.device_id = latest.device_id
        WHERE latest.rank = 1
        ORDER BY latest.device_id`,
    )
    .all(agentId, since);
  return rows.map((r) => ({
    deviceId: r.device_id,
    timestamp: r.timestamp,
    avgMinMs: r.avg_min,
    avgMaxMs: r.avg_max,
    avgMedianMs: r.avg_median,
    latestMedianMs: r.median_ms,
    latestSentPacketCount: r.sent_packet_count,
    latestLostPacketCount: r.lost_packet_count,
  }));
}

export async function recordSpeedSample(store: Store, agentId: number, sample: { downloadBps: number; uploadBps: number; timestamp?: number }): Promise<void> {
  for (const [name, value] of [['downloadBps', sample.downloadBps], ['uploadBps', sample.uploadBps]] as const) {
    if (!Number.isInteger(value) || value < 0) throw new StoreError('INVALID', `${name} must be a non-negative integer (bits per second), not ${value}`);
  }
  await store
    .statement('INSERT INTO speed_samples (agent_id, timestamp, download_bps, upload_bps) VALUES (?, ?, ?, ?)')
    .run(agentId, sample.timestamp ?? store.now(), sample.downloadBps, sample.uploadBps);
}

export async function speedHistory(store: Store, agentId: number, from: number, to: number): Promise<SpeedSample[]> {
  return (await store
    .statement<[number, number, number], { timestamp: number; download_bps: number; upload_bps: number }>(
      'SELECT timestamp, download_bps, upload_bps FROM speed_samples WHERE agent_id = ? AND timestamp BETWEEN ? AND ? ORDER BY timestamp, rowid',
    )
    .all(agentId, from, to))
    .map((r) => ({ timestamp: r.timestamp, downloadBps: r.download_bps, uploadBps: r.upload_bps }));
}
