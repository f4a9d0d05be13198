// bin/driverbox.js re-runs itself with --no-node-snapshot. When the launcher is killed in a way
// it cannot pass on (SIGKILL, as a test runner's timeout does), the real process must not run
// on as an orphan holding its ports.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive } from '../security/process-tree.js';

const bin = path.resolve(import.meta.dirname, '../../bin/driverbox.js');
const fixture = path.resolve(import.meta.dirname, '../../drivers-examples/ups-status/device.json');

function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map((l) => Number(l.trim())).filter(Boolean);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

describe('the bin/driverbox.js launcher', () => {
  it('a SIGKILL of the launcher stops the process it started', async () => {
    const launcher = spawn(process.execPath, [bin, 'simulate', fixture, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DRIVERBOX_DATA_DIR: path.join(import.meta.dirname, '../../node_modules/.cache/cli-launcher-test') } });
    let output = '';
    launcher.stdout.on('data', (c) => (output += c));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`simulate did not start: ${output}`)), 20_000);
      launcher.stdout.on('data', () => {
        if (output.includes('Requests (Ctrl-C to stop)')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const [child] = childrenOf(launcher.pid!);
    expect(child).toBeGreaterThan(0);
    launcher.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    while (alive(child!) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive(child!)).toBe(false);
  });
});
