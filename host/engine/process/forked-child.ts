// One forked sandbox child: started with --no-node-snapshot and driverbox's heap flags (before
// the caller's, so that theirs win), its stderr forwarded as it comes and its tail kept for the
// reason of a crash, and what the supervisor (sandbox-process.ts) knows of it.
import { fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { V8_HEAP_FLAGS } from '../../platform/v8-heap-flags.js';
import { terminalOutput } from '../../terminal-text.js';
import type { WireError } from './protocol.js';

const STDERR_TAIL_CHARS = 600;

/** One forked child and what the supervisor knows of it. */
export interface Child {
  process: ChildProcess;
  pid: number;
  ready: boolean;
  readyAt: number;
  startedAt: number;
  /** Why the supervisor killed it, when it did (an IPC failure, close()'s grace ran out). */
  killedBecause: string | null;
  /** The init error it reported, when createHost failed there. */
  initError: WireError | null;
  /** The end of its stderr, for the reason of a crash. */
  stderrTail: string;
  /** Killed because a run overstayed its deadline plus the margin. */
  overstay: boolean;
}

/** Forks the child module at `entry` with these extra Node flags. */
export function forkChild(entry: string, execArgv: readonly string[]): Child {
  const child = fork(entry, [], {
    execArgv: ['--no-node-snapshot', ...V8_HEAP_FLAGS, ...execArgv],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  const state: Child = {
    process: child,
    pid: child.pid ?? -1,
    ready: false,
    readyAt: 0,
    startedAt: performance.now(),
    killedBecause: null,
    initError: null,
    stderrTail: '',
    overstay: false,
  };
  // Forwarded as it comes (crash reports matter); the tail also goes into the failed runs' reason.
  // Escaped (terminalOutput): what a crash report quotes of a driver must not drive the terminal.
  const decoder = new StringDecoder('utf8');
  child.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(terminalOutput(decoder.write(chunk)));
    state.stderrTail = (state.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  return state;
}
