// The child process side of runDriver, for test processes that were not started with
// --no-node-snapshot: reads one run request as JSON on stdin, runs it, writes the outcome as
// JSON on stdout ({ result } or { error: { code, message } }).
import { createHost, type HostOptions } from '../engine/host.js';
import { type RunRequest } from '../contract/run-request.js';

export interface ChildRequest {
  host: Pick<HostOptions, 'trustedCAs'>;
  run: RunRequest;
}

export type ChildAnswer = { result: unknown } | { error: { code: string | null; message: string } };

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function answer(): Promise<ChildAnswer> {
  try {
    const { host: hostOptions, run } = JSON.parse(await readStdin()) as ChildRequest;
    const host = createHost({ ...hostOptions, threads: 1, warmIsolates: 1 });
    try {
      return { result: await host.run(run) };
    } finally {
      await host.close();
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { error: { code: typeof code === 'string' ? code : null, message: error instanceof Error ? error.message : String(error) } };
  }
}

process.stdout.write(JSON.stringify(await answer()));
