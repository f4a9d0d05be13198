#!/usr/bin/env node
// Launcher: isolated-vm needs Node started with --no-node-snapshot, which a running
// process cannot turn on for itself, so re-run this same script with the flag when needed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const hasFlag = process.execArgv.includes('--no-node-snapshot') || (process.env.NODE_OPTIONS ?? '').includes('--no-node-snapshot');

if (hasFlag) {
  // Started by the launcher below: when the launcher dies without passing a signal on (SIGKILL,
  // a test's timeout), its IPC channel closes, and this process stops as on SIGTERM instead of
  // running on as an orphan.
  const launched = process.env.DRIVERBOX_LAUNCHED === '1';
  delete process.env.DRIVERBOX_LAUNCHED;
  if (process.channel && launched) {
    process.channel.unref();
    process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  }
  // The CLI owns its process: driverbox's V8 heap flags, set before any isolate exists.
  const { tuneProcessHeap } = await import('../dist/host/platform/v8-heap-flags.js');
  tuneProcessHeap();
  const { main } = await import('../dist/host/cli/main.js');
  process.exitCode = await main(process.argv.slice(2));
} else {
  const child = spawn(process.execPath, ['--no-node-snapshot', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, DRIVERBOX_LAUNCHED: '1' },
  });
  child.channel?.unref();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      // Die of the same signal; our forwarding handler would otherwise swallow it (and exit 0).
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    else process.exit(code ?? 1);
  });
}
