// bench:agent's figures beside the ones issue 24 (item 3, "flat cost as the inventory grows")
// measured before the fix and the targets it set, for the two sizes it named (2 cores, one run
// each). Other sizes print no comparison.

export interface AgentFigures {
  startMs: number | null;
  /** Host + sandbox child CPU per completed run (ms). */
  cpuMsPerRun: number | null;
  hostCpuMsPerRun: number | null;
  latenessP99Ms: number | null;
  /** Peak host RSS + peak child RSS (bytes). */
  peakRssBytes: number | null;
  childPeakRssBytes: number | null;
}

interface Reference {
  /** The issue's figure (null: it gave none). */
  before: number | null;
  /** The bound to stay under (null: none). */
  target: number | null;
  /** What the target says, as printed. */
  targetText: string;
}

type Row = { name: string; unit: 'ms' | 'MiB'; pick: (f: AgentFigures) => number | null; ref: Reference };

const MIB = 1024 * 1024;

/** Issue 24's figures by `devices/periodS`. */
const REFERENCES: Record<string, Row[]> = {
  '1000/10': [
    { name: 'start()', unit: 'ms', pick: (f) => f.startMs, ref: { before: 1100, target: null, targetText: '-' } },
    { name: 'CPU per run, host + child', unit: 'ms', pick: (f) => f.cpuMsPerRun, ref: { before: 4.7, target: 2, targetText: '≤ 2' } },
    { name: 'CPU per run, host', unit: 'ms', pick: (f) => f.hostCpuMsPerRun, ref: { before: 1.74, target: null, targetText: '-' } },
    { name: 'lateness p99', unit: 'ms', pick: (f) => f.latenessP99Ms, ref: { before: 3.9, target: 3.9, targetText: '≤ 3.9 (unchanged)' } },
    { name: 'child RSS peak', unit: 'MiB', pick: (f) => f.childPeakRssBytes, ref: { before: 212 * MIB, target: null, targetText: '-' } },
  ],
  '10000/60': [
    { name: 'start()', unit: 'ms', pick: (f) => f.startMs, ref: { before: 42_900, target: 5000, targetText: '≤ 5000' } },
    // The target is 1.2× the 1,000-device figure of the same build; the 1,000-device target (2 ms) stands in for it.
    { name: 'CPU per run, host + child', unit: 'ms', pick: (f) => f.cpuMsPerRun, ref: { before: null, target: 2.4, targetText: '≤ 1.2 × 1k (2.4)' } },
    { name: 'CPU per run, host', unit: 'ms', pick: (f) => f.hostCpuMsPerRun, ref: { before: 4.84, target: null, targetText: '-' } },
    { name: 'lateness p99', unit: 'ms', pick: (f) => f.latenessP99Ms, ref: { before: 840, target: 100, targetText: '≤ 100' } },
    { name: 'host + child RSS peak', unit: 'MiB', pick: (f) => f.peakRssBytes, ref: { before: null, target: 600 * MIB, targetText: '≤ 600' } },
    { name: 'child RSS peak', unit: 'MiB', pick: (f) => f.childPeakRssBytes, ref: { before: 721 * MIB, target: null, targetText: '-' } },
  ],
};

const show = (value: number | null, unit: Row['unit']) =>
  value === null ? '-' : unit === 'MiB' ? (value / MIB).toFixed(1) : value >= 100 ? value.toFixed(0) : value.toFixed(2);

/** The comparison rows for this size, or null when the issue measured no such size. */
export function compareWithIssue(devices: number, periodS: number, figures: AgentFigures): { headers: string[]; rows: string[][] } | null {
  const rows = REFERENCES[`${devices}/${periodS}`];
  if (!rows) return null;
  return {
    headers: ['figure', 'unit', 'this run', 'issue 24 before', 'now / before', 'target', 'met'],
    rows: rows.map(({ name, unit, pick, ref }) => {
      const now = pick(figures);
      const ratio = now !== null && ref.before ? `${(now / ref.before).toFixed(2)}×` : '-';
      const met = now === null || ref.target === null ? '-' : now <= ref.target ? 'yes' : 'no';
      return [name, unit, show(now, unit), show(ref.before, unit), ratio, ref.targetText, met];
    }),
  };
}
