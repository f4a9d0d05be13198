// Starts a hostile peer in a worker thread, so that its own work (writing a flood, encrypting
// 400,000 packets) is off the host's loop and the loop watch sees only the host's work.
// The worker script posts { port } once listening; `scenario` picks its behaviour.
import { Worker } from 'node:worker_threads';

export interface PeerWorker {
  port: number;
  stop(): Promise<void>;
}

export async function startPeerWorker(script: URL, scenario: string): Promise<PeerWorker> {
  const worker = new Worker(script, { workerData: { scenario } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: { port: number }) => resolve(message.port));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the peer worker exited (${code}) before listening`)));
  });
  return {
    port,
    async stop() {
      await worker.terminate();
    },
  };
}
