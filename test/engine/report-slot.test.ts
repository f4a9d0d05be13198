// The report slot: a sandbox thread leaves a run's result there when its driver ends the
// run; the host thread reads the latest report, never a half-written one.
import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { createReportSlot, ReportSlot, sharedClock } from '../../host/engine/threads/report-slot.js';

describe('report slot', () => {
  it('holds the latest report, with its run and time; nothing before the first', () => {
    const buffer = createReportSlot(1024);
    const slot = new ReportSlot(buffer);
    expect(slot.seq()).toBe(0);
    expect(slot.read()).toBeNull();
    const before = sharedClock();
    expect(slot.write(7, JSON.stringify({ status: 'success', logs: ['é ✓'] }))).toBe(true);
    expect(slot.write(8, JSON.stringify({ status: 'failure' }))).toBe(true);
    const report = new ReportSlot(buffer).read()!; // as the other thread sees it
    expect(report.run).toBe(8);
    expect(JSON.parse(report.json)).toEqual({ status: 'failure' });
    expect(report.at).toBeGreaterThanOrEqual(before);
    expect(report.at).toBeLessThanOrEqual(sharedClock());
    expect(report.seq).toBe(slot.seq());
  });

  it('refuses a report larger than the slot (the caller posts it instead)', () => {
    const slot = new ReportSlot(createReportSlot(64));
    expect(slot.write(1, 'x'.repeat(65))).toBe(false);
    expect(slot.read()).toBeNull();
    expect(slot.write(1, JSON.stringify('é'.repeat(31)))).toBe(true); // 64 bytes as UTF-8
  });

  it('the reader never gets a torn report while another thread rewrites it', async () => {
    const buffer = createReportSlot(64 * 1024);
    const slot = new ReportSlot(buffer);
    // The writer follows ReportSlot.write's protocol; each report is one letter repeated, its
    // length set by the run number, so a read that mixes two reports shows.
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const ints = new Int32Array(workerData, 0, 4);
       const data = Buffer.from(workerData, 24);
       parentPort.postMessage('ready');
       const end = Date.now() + 300;
       for (let run = 1; Date.now() < end; run++) {
         const json = JSON.stringify(String.fromCharCode(97 + (run % 26)).repeat(1000 + (run % 50) * 1000));
         Atomics.add(ints, 0, 1);
         const length = data.write(json, 0);
         ints[1] = run;
         ints[2] = length;
         Atomics.add(ints, 0, 1);
       }
       parentPort.postMessage('done');`,
      { eval: true, workerData: buffer },
    );
    await new Promise((resolve) => worker.once('message', resolve));
    let seen = 0;
    let bad = 0;
    const end = Date.now() + 300;
    while (Date.now() < end) {
      const report = slot.read();
      if (!report) continue;
      seen++;
      const body = JSON.parse(report.json) as string;
      if (body.length !== 1000 + (report.run % 50) * 1000 || body !== body[0]!.repeat(body.length)) bad++;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    await worker.terminate();
    expect(seen).toBeGreaterThan(0);
    expect(bad).toBe(0);
  });
});
