#!/usr/bin/env node
// Launcher: isolated-vm needs Node started with --no-node-snapshot, which a running
// process cannot turn on for itself, so re-run this same script with the flag when needed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const hasFlag = process.execArgv.includes('--no-node-snapshot') || (process.env.NODE_OPTIONS ?? '').includes('--no-node-snapshot');

if (hasFlag) {
  const { main } = await import('../dist/host/cli/main.js');
  process.exitCode = await main(process.argv.slice(2));
} else {
  const child = spawn(process.execPath, ['--no-node-snapshot', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
