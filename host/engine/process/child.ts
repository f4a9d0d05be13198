// The sandbox process: started by startSandboxProcess with --no-node-snapshot, it creates one
// Host and serves runs over IPC until told to close, or until the agent goes away.
import { getHeapStatistics } from 'node:v8';
import { DriverboxError } from '../../contract/errors.js';
import { createHost, type Host } from '../host.js';
import type { FromChild, ToChild, WireError } from './protocol.js';

function toWire(error: unknown): WireError {
  const code = (error as { code?: unknown } | null)?.code;
  return { code: typeof code === 'string' ? code : null, message: error instanceof Error ? error.message : String(error) };
}

function send(message: FromChild, then?: () => void): void {
  process.send?.(message, undefined, undefined, () => then?.());
}

if (!process.send) {
  throw new DriverboxError('INVALID_OPTIONS', 'the sandbox process entry must be started by startSandboxProcess (it needs an IPC channel)');
}

let host: Host | null = null;

// The agent died or closed the channel: nobody can receive results, so stop at once.
process.on('disconnect', () => process.exit(0));

process.on('message', (message: ToChild) => {
  switch (message.t) {
    case 'init':
      try {
        host = createHost(message.host);
        send({ t: 'ready' });
      } catch (error) {
        send({ t: 'init-failed', error: toWire(error) }, () => process.disconnect());
      }
      return;
    case 'run': {
      const running = host;
      if (!running) return send({ t: 'error', id: message.id, error: { code: 'SANDBOX_FAILED', message: 'the sandbox process got a run before its host was created' }, pool: emptyStats() });
      running.run(message.request).then(
        (result) => send({ t: 'result', id: message.id, result, pool: running.stats() }),
        (error: unknown) => send({ t: 'error', id: message.id, error: toWire(error), pool: running.stats() }),
      );
      return;
    }
    case 'memory': {
      const running = host;
      if (!running) return;
      void running.memory().then((sandbox) => {
        const own = getHeapStatistics();
        const mainHeap = { used: own.used_heap_size, total: own.total_heap_size, external: own.external_memory };
        send({ t: 'memory', id: message.id, memory: { rss: process.memoryUsage.rss(), mainHeap, sandbox } });
      }, () => undefined); // closing: the agent stops waiting for the answer
      return;
    }
    case 'close':
      void (host?.close() ?? Promise.resolve()).finally(() => process.disconnect());
      return;
  }
});

function emptyStats() {
  return { alive: 0, idle: 0, busy: 0, waiting: 0, created: 0, disposed: 0 };
}
