// A sandbox thread: owns a pool of isolates and executes the runs the host thread sends,
// calling into the isolates synchronously. Driver code therefore never runs on the host's
// event loop, and the network stays on the host thread (host/bridges/run-network.ts).
import { getHeapStatistics } from 'node:v8';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { IsolatePool } from './pool.js';
import { ReportSlot } from './report-slot.js';
import { executeRun, type SandboxNetwork } from './run.js';
import { useRuntimeDir } from './runtime-bundle.js';
import type { FromThread, SyncReply, ThreadConfig, ToThread } from './thread-protocol.js';

const config = workerData as ThreadConfig;
useRuntimeDir(config.runtimeDir);
const port = parentPort!;
const pool = new IsolatePool(config.pool);
const syncFlag = new Int32Array(config.syncFlag);
const reports = new ReportSlot(config.reportSlot);
/** Answers awaited by each run, by operation id. */
const runs = new Map<number, Map<number, (json: string) => void>>();

let outbox: FromThread[] = [];
const flush = () => {
  const batch = outbox;
  outbox = [];
  port.postMessage(batch);
};
const send = (message: FromThread) => {
  if (outbox.push(message) === 1) setImmediate(flush);
};

/** Asks the host thread and waits for its answer: only for what a driver needs at once. */
function askHost(message: FromThread): SyncReply {
  flush(); // what was queued goes first, in order
  Atomics.store(syncFlag, 0, 0);
  port.postMessage([message]);
  Atomics.wait(syncFlag, 0, 0);
  const reply = receiveMessageOnPort(config.syncPort);
  if (!reply) throw new Error('the host thread did not answer');
  return reply.message as SyncReply;
}

function networkFor(run: number, answers: Map<number, (json: string) => void>): SandboxNetwork {
  return {
    start(op, call, answer) {
      answers.set(call.id, answer);
      send({ t: 'net', run, id: call.id, op, call });
    },
    external(call) {
      const reply = askHost({ t: 'external', run, call });
      if (!reply.ok) throw new Error(reply.message);
      return reply.target;
    },
    close() {
      answers.clear();
    },
    reported(result) {
      // For the host to find if this thread stays busy (report-slot.ts); too large: posted at once.
      if (!reports.write(run, JSON.stringify(result))) port.postMessage([{ t: 'reported', run, result } satisfies FromThread]);
    },
  };
}

async function execute(run: number, plan: Extract<ToThread, { t: 'run' }>['plan']): Promise<void> {
  const answers = new Map<number, (json: string) => void>();
  runs.set(run, answers);
  try {
    const warm = await pool.acquire(plan.limits.memoryMb);
    let outcome: Awaited<ReturnType<typeof executeRun>> | undefined;
    try {
      outcome = await executeRun(warm, plan, networkFor(run, answers));
    } finally {
      pool.release(warm, outcome?.discard ?? true);
    }
    send({ t: 'ended', run, result: outcome.result, stats: pool.stats() });
  } catch (error) {
    send({ t: 'failed', run, message: error instanceof Error ? error.message : String(error), stats: pool.stats() });
  } finally {
    runs.delete(run);
  }
}

port.on('message', (batch: ToThread[]) => {
  for (const message of batch) {
    switch (message.t) {
      case 'run':
        void execute(message.run, message.plan);
        break;
      case 'answer': {
        const answers = runs.get(message.run);
        const answer = answers?.get(message.id);
        if (answer) {
          answers!.delete(message.id);
          answer(message.json);
        }
        break;
      }
      case 'memory': {
        // Only where the process runs with --expose-gc (the soak bench): then workers have gc() too.
        if (message.gc) (globalThis as { gc?: () => void }).gc?.();
        const own = getHeapStatistics();
        const { isolates, heap } = pool.heaps();
        send({
          t: 'memory',
          id: message.id,
          memory: {
            threads: 1,
            threadHeap: { used: own.used_heap_size, total: own.total_heap_size, external: own.external_memory },
            isolates,
            isolateHeap: heap,
          },
        });
        break;
      }
      case 'close':
        // Sent once no run is left: the isolates go, the last counts go out, the thread ends.
        pool.close();
        port.postMessage([{ t: 'stats', stats: pool.stats() } satisfies FromThread]);
        process.exit(0);
    }
  }
});

void pool
  .prewarm(config.prewarmMemoryMb)
  .catch(() => {})
  .then(() => send({ t: 'stats', stats: pool.stats() }));
