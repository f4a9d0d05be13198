// Start lateness and spread of the scale-out run source: a throwaway redis-server (as the tests
// start it), one reconciler, W run workers in this process, N associations with one period, and a
// runSlot that only waits --run-ms. Nothing of the sandbox or the store: this measures BullMQ and
// host/scale-out alone.
//
// Reported: runs, duplicates (association, slot) seen twice (must be 0), skipped-late, start
// lateness (start − slot) p50/p90/p99/max, and each worker's share of the runs.
//
// Run:     node --import tsx bench/scale-out-queue.ts
//          node --import tsx bench/scale-out-queue.ts --associations 200 --period 2000 --duration 30 --hz 100
// Options: --associations N (60), --period MS (1000), --duration S (20), --workers W (2),
//          --run-ms MS (20), --hz N (Redis hz; default: the server's, 10).
import { Redis } from 'ioredis';
import { createReconciler, createRunWorker, type ScheduleEntry } from '../host/scale-out/index.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { intFlag, parseFlags, percentile, runBench, table } from './lib/common.js';

interface Options {
  associations: number;
  period: number;
  duration: number;
  workers: number;
  runMs: number;
  hz: number | null;
}

const HELP = 'node --import tsx bench/scale-out-queue.ts [--associations N] [--period MS] [--duration S] [--workers W] [--run-ms MS] [--hz N]';

runBench('bench/scale-out-queue', async () => {
  const options = parseFlags<Options>(
    process.argv.slice(2),
    { associations: 60, period: 1000, duration: 20, workers: 2, runMs: 20, hz: null },
    {
      '--associations': intFlag('associations'),
      '--period': intFlag('period'),
      '--duration': intFlag('duration'),
      '--workers': intFlag('workers'),
      '--run-ms': intFlag('runMs', true),
      '--hz': intFlag('hz'),
    },
    HELP,
  );
  const redis = await startRedisServer();
  try {
    if (options.hz !== null) {
      const admin = new Redis(redis.port, '127.0.0.1');
      await admin.config('SET', 'hz', String(options.hz));
      admin.disconnect();
    }
    const deadlineMs = Math.max(1, Math.min(options.period - 1, options.runMs * 10, 30_000));
    const desired: ScheduleEntry[] = Array.from({ length: options.associations }, (_, i) => ({ associationId: i + 1, periodMs: options.period, version: 'v1' }));
    const reconciler = createReconciler({ url: redis.url, loadSchedules: async () => desired, deadlineMs, driftEveryMs: 0 });
    await reconciler.start();
    const seen = new Map<string, number>();
    const lateness: number[] = [];
    const workers = await Promise.all(
      Array.from({ length: options.workers }, async (_, i) => {
        const worker = createRunWorker({
          url: redis.url,
          name: `w${i + 1}`,
          deadlineMs,
          marginMs: 1000,
          lockDurationMs: deadlineMs + 2000,
          runSlot: async (run) => {
            const key = `${run.associationId}@${run.slotMs}`;
            seen.set(key, (seen.get(key) ?? 0) + 1);
            lateness.push(Date.now() - run.slotMs);
            await new Promise((resolve) => setTimeout(resolve, options.runMs));
            return 'stored';
          },
        });
        worker.on('error', (error) => process.stderr.write(`w${i + 1}: ${error.message}\n`));
        await worker.start();
        return worker;
      }),
    );
    await reconciler.waitForReconcile(await reconciler.requestReconcile());
    await new Promise((resolve) => setTimeout(resolve, options.duration * 1000));
    const figures = await Promise.all(workers.map((worker) => worker.readFigures()));
    for (const worker of workers) await worker.stop({ graceMs: options.period });
    await reconciler.stop();

    const sorted = [...lateness].sort((a, b) => a - b);
    const duplicates = [...seen.values()].filter((count) => count > 1).length;
    const started = figures.reduce((sum, f) => sum + f.started, 0);
    process.stdout.write(
      `${options.associations} associations every ${options.period} ms, ${options.workers} workers, ${options.duration} s, Redis hz ${options.hz ?? 'default'}\n` +
        `runs ${lateness.length} (about ${Math.floor((options.associations * options.duration * 1000) / options.period)} due), duplicates ${duplicates}, ` +
        `skipped-late ${figures.reduce((sum, f) => sum + f.skippedLate, 0)}\n` +
        `lateness ms: p50 ${percentile(sorted, 50)}  p90 ${percentile(sorted, 90)}  p99 ${percentile(sorted, 99)}  max ${sorted[sorted.length - 1] ?? NaN}\n\n` +
        table(
          ['worker', 'runs', 'share', 'lateness p99'],
          figures.map((f, i) => [`w${i + 1}`, String(f.started), `${((100 * f.started) / Math.max(1, started)).toFixed(1)} %`, `${f.lateness.p99} ms`]),
        ) +
        '\n',
    );
    return duplicates === 0 ? 0 : 1;
  } finally {
    await redis.stop();
  }
});
