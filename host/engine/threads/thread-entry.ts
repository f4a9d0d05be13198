// A sandbox thread: owns a pool of isolates and executes the runs the host thread sends,
// calling into the isolates synchronously. Driver code therefore never runs on the host's
// event loop. A plain run's network is done here too (thread-network.ts); a record, replay
// or deviceState run's is the host thread's (host/bridges/run-network.ts), asked by message.
import { getHeapStatistics } from 'node:v8';
import { measureMemory } from 'node:vm';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { inIsolateCall, useBusySlot } from './busy-slot.js';
import { IsolatePool } from '../isolate/pool.js';
import { ReportSlot } from './report-slot.js';
import type { RunOutcome, SandboxNetwork } from '../isolate/run-plan.js';
import { RunSteps } from '../isolate/run-steps.js';
import { useRuntimeDir } from '../isolate/runtime-bundle.js';
import type { LocalNetwork, ThreadNetworks } from './thread-network.js';
import type { FromThread, SyncReply, ThreadConfig, ThreadReport, ToThread } from './thread-protocol.js';

const config = workerData as ThreadConfig;
useRuntimeDir(config.runtimeDir);
useBusySlot(config.busySlot);
const port = parentPort!;
const pool = new IsolatePool(config.pool);
const syncFlag = new Int32Array(config.syncFlag);
const reports = new ReportSlot(config.reportSlot);
/** Answers awaited by each run, by operation id. */
const runs = new Map<number, Map<number, (json: string) => void>>();

let outbox: FromThread[] = [];

/**
 * Posts messages, and never throws: a message that cannot be cloned (it should not happen: every
 * message is built here from checked data) ends its own run only, with a failure that always can.
 */
function post(batch: FromThread[]): void {
  try {
    port.postMessage(batch);
    return;
  } catch {
    // one of them: each goes on its own
  }
  for (const message of batch) {
    try {
      port.postMessage([message]);
    } catch (error) {
      const run = 'run' in message ? message.run : null;
      if (run === null) continue;
      const text = `the sandbox could not send this run's ${message.t} message: ${error instanceof Error ? error.message : 'unknown error'}`;
      if (message.t === 'net') {
        // The driver's request never left: its callback gets the error.
        runs.get(run)?.get(message.id)?.(JSON.stringify({ error: { code: 'GENERIC_ERROR', message: text }, response: null }));
        continue;
      }
      try {
        port.postMessage([{ t: 'failed', run, message: text, stats: pool.stats(), ofRun: true } satisfies FromThread]);
      } catch {
        // nothing more can be done from here; the host's watchdog answers the run
      }
    }
  }
}

const flush = () => {
  const batch = outbox;
  outbox = [];
  post(batch);
};
const send = (message: FromThread) => {
  if (outbox.push(message) === 1) setImmediate(flush);
};

/** Asks the host thread and waits for its answer: only for what a driver needs at once. */
function askHost(message: FromThread): SyncReply {
  flush(); // what was queued goes first, in order
  Atomics.store(syncFlag, 0, 0);
  post([message]);
  Atomics.wait(syncFlag, 0, 0);
  const reply = receiveMessageOnPort(config.syncPort);
  if (!reply) throw new Error('the host thread did not answer');
  return reply.message as SyncReply;
}

/**
 * The network of runs that do theirs here (HostOptions.networkInThreads), loaded only then; the
 * host's policy is asked for them, and a refusal to answer allows nothing. Loaded before 'ready'
 * (no run comes earlier), and not by a top-level await: a worker whose module awaits at top level
 * and then calls process.exit() aborted in isolated-vm 5's teardown
 * (IsolateEnvironment::GetCurrent() assertion) one thread in a few on Node 20.
 */
let networks: ThreadNetworks | null = null;
const loading = (async () => {
  if (!config.network) return;
  const { ThreadNetworks } = await import('./thread-network.js');
  networks = new ThreadNetworks(config.network, (run, kind, host) => {
    const reply = askHost({ t: 'policy', run, kind, host });
    return reply.ok && reply.value === true;
  });
})();

/** For the host to find if this thread stays busy (report-slot.ts); too large: posted at once. */
function leaveReport(run: number, report: ThreadReport): void {
  try {
    if (!reports.write(run, JSON.stringify(report))) post([{ t: 'reported', run, ...report }]);
  } catch {
    // the run's 'ended' message carries the same result
  }
}

/** A run's way to the host thread's network: each call a message, each answer one back. */
function hostNetworkFor(run: number, answers: Map<number, (json: string) => void>): SandboxNetwork {
  return {
    start(op, call, answer) {
      answers.set(call.id, answer);
      send({ t: 'net', run, id: call.id, op, call });
    },
    external(call) {
      const reply = askHost({ t: 'external', run, call });
      if (!reply.ok) throw new Error(reply.message);
      return reply.value as number;
    },
    close() {
      answers.clear();
    },
    reported(result) {
      leaveReport(run, { result });
    },
  };
}

/**
 * A test-only fault: a run whose driver source contains the text in this environment variable
 * (set in the host process before the host starts, so out of any driver's reach) holds this
 * thread in a loop, as a thread stuck in native code would be: what the host's watchdog is for.
 */
const WEDGE_MARK = process.env.DRIVERBOX_TEST_WEDGE_THREAD ?? '';

async function execute(run: number, plan: Extract<ToThread, { t: 'run' }>['plan']): Promise<void> {
  const answers = new Map<number, (json: string) => void>();
  runs.set(run, answers);
  if (WEDGE_MARK && plan.driver.source.includes(WEDGE_MARK)) for (;;);
  let local: LocalNetwork | null = null;
  try {
    const warm = await pool.acquire(plan.limits.memoryMb);
    let outcome: RunOutcome | undefined;
    try {
      if (plan.network && !networks) throw new Error('this sandbox thread does no network of its own');
      const network = plan.network && networks ? (local = networks.open(run, { ...plan, network: plan.network }, (report) => leaveReport(run, report))) : hostNetworkFor(run, answers);
      outcome = await new RunSteps(warm, plan, network, inIsolateCall).run();
    } finally {
      pool.release(warm, outcome?.discard ?? true);
    }
    send({ t: 'ended', run, ...(local ? local.report(outcome.result) : { result: outcome.result }), stats: pool.stats() });
  } catch (error) {
    (local as LocalNetwork | null)?.close(); // what it still has in flight is dropped
    send({ t: 'failed', run, message: error instanceof Error ? error.message : String(error), stats: pool.stats() });
  } finally {
    runs.delete(run);
  }
}

port.on('message', (batch: ToThread[]) => {
  for (const message of batch) {
    // Nothing here may throw: a throw would end the thread and every run on it.
    try {
      receive(message);
    } catch (error) {
      if (message.t === 'run' || message.t === 'answer') {
        send({ t: 'failed', run: message.run, message: `the sandbox could not handle a message of this run: ${error instanceof Error ? error.message : 'unknown error'}`, stats: pool.stats(), ofRun: true });
      }
    }
  }
});

/**
 * Ends the thread after a full garbage collection. A worker's teardown (Node's ~IsolateData)
 * finishes any incremental marking under way, and isolated-vm 5's handles that die in that
 * collection abort the whole process (ClassHandle::WeakCallback finds no IsolateEnvironment,
 * which is gone by then). Collecting first leaves nothing for that pass. vm.measureMemory's
 * eager mode is the one way to ask for a full collection without --expose-gc (which a worker
 * cannot be given); its experimental warning is not the user's concern, so the thread's
 * warning printer goes first.
 */
function collectThenExit(): void {
  process.removeAllListeners('warning');
  measureMemory({ execution: 'eager' })
    .catch(() => {})
    .finally(() => process.exit(0));
}

function receive(message: ToThread): void {
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
      // Sent once no run is left: the isolates go, the last counts go out, the thread ends
      // (after its modules are in: a close can come before 'ready').
      pool.close();
      port.postMessage([{ t: 'stats', stats: pool.stats() } satisfies FromThread]);
      void loading.finally(collectThenExit);
  }
}

void loading.then(
  () => {
    port.postMessage([{ t: 'ready' } satisfies FromThread]);
    return pool.prewarm(config.prewarmMemoryMb).catch(() => {});
  },
  // Without its network module the thread is of no use: the host sees it end and replaces it.
  () => process.exit(1),
).then(() => send({ t: 'stats', stats: pool.stats() }));
