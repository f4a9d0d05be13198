// The TCP sensor prober: every interval it probes each TCP sensor of the store at its device's
// address, writes UP / DOWN, and records one RTD sample per device from the round trips of
// that round (every probe that got an answer, accept or refusal, is a measured round trip;
// one that timed out or failed counts as a lost packet).
import { recordRtdSample } from '../store/monitoring/rtd-speed.js';
import { getTcpSensorTarget, listTcpSensorTargets, recordTcpStatus, type TcpSensorTarget } from '../store/monitoring/sensors.js';
import type { Store } from '../store/store.js';
import { summariseRoundTrips } from './round-trips.js';
import { DEFAULT_PROBE_TIMEOUT_MS, probeDevicePort, type TcpProbeResult } from './tcp-probe.js';

export const DEFAULT_PROBE_INTERVAL_MS = 60_000;

export interface MonitorProberOptions {
  /** Time between the starts of two rounds. Default 60 s. */
  intervalMs?: number;
  /** Per-probe connect timeout. Default 3 s. */
  timeoutMs?: number;
  /** Probes in flight at once. Default 16. */
  concurrency?: number;
  /** Told of a round that failed (the store closed, a disk error); the prober keeps going. */
  onError?: (error: Error) => void;
}

export interface SensorProbe extends TcpProbeResult {
  sensorId: number;
  deviceId: number;
}

export interface MonitorProber {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly running: boolean;
  /** Probes at once, then every intervalMs until stop(). */
  start(): void;
  /** Stops the timer and waits for a round in flight. */
  stop(): Promise<void>;
  /** One round now: every TCP sensor, or only the one given (empty when it does not exist). */
  probeNow(sensorId?: number): Promise<SensorProbe[]>;
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Writes a round's outcomes: each sensor's status, and one RTD sample per device probed. */
export async function recordProbes(store: Store, probes: readonly SensorProbe[], checkedAt = store.now()): Promise<void> {
  await store.transaction(async () => {
    const byDevice = new Map<number, Array<number | null>>();
    for (const probe of probes) {
      if (!await recordTcpStatus(store, probe.sensorId, probe.status, checkedAt)) continue; // deleted meanwhile
      if (probe.reason === 'no-address') continue; // nothing was sent
      const rtts = byDevice.get(probe.deviceId) ?? [];
      rtts.push(probe.rttMs);
      byDevice.set(probe.deviceId, rtts);
    }
    for (const [deviceId, rtts] of byDevice) await recordRtdSample(store, deviceId, { ...summariseRoundTrips(rtts), timestamp: checkedAt });
  });
}

export function createMonitorProber(store: Store, options: MonitorProberOptions = {}): MonitorProber {
  const intervalMs = options.intervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const concurrency = options.concurrency ?? 16;
  if (!(intervalMs > 0)) throw new RangeError(`intervalMs must be above 0, not ${intervalMs}`);
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be above 0, not ${timeoutMs}`);
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<unknown> = Promise.resolve();

  const probeTargets = async (targets: TcpSensorTarget[]): Promise<SensorProbe[]> => {
    const probes = await mapLimited(targets, concurrency, async (t) => ({
      sensorId: t.sensorId,
      deviceId: t.deviceId,
      ...(await probeDevicePort(t, t.port, timeoutMs)),
    }));
    if (store.open) await recordProbes(store, probes);
    return probes;
  };

  const round = async (sensorId?: number): Promise<SensorProbe[]> => {
    const targets = sensorId === undefined ? await listTcpSensorTargets(store) : [await getTcpSensorTarget(store, sensorId)].filter((t) => t !== undefined);
    const run = probeTargets(targets);
    inFlight = Promise.all([inFlight, run.catch(() => undefined)]);
    return run;
  };

  // A round slower than the interval is not overlapped by the next one: that one is skipped.
  let scheduledBusy = false;
  const scheduledRound = async () => {
    if (scheduledBusy) return;
    scheduledBusy = true;
    const done = () => {
      scheduledBusy = false;
    };
    try {
      await round();
    } catch (error) {
      options.onError?.(error as Error);
    } finally {
      done();
    }
  };

  return {
    intervalMs,
    timeoutMs,
    get running() {
      return timer !== null;
    },
    async start() {
      if (timer) return;
      timer = setInterval(scheduledRound, intervalMs);
      timer.unref();
      await scheduledRound();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await inFlight;
    },
    probeNow: async (sensorId) => await round(sensorId),
  };
}
