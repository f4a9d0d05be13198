// A variable's history over a time window. Numbers (NUMBER and RATE variables: every value a
// number) are plotted with uPlot, with the values under the cursor in the legend and the samples
// also as a table (the chart's text alternative); anything else (STRING) is a list of changes.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { parseApiTime } from '../api.js';
import { localTime, numericValue, timeZoneName } from '../format.js';
import type { VariableHistorySample } from '../types.js';

export interface Sample {
  /** ms */
  t: number;
  value: string | null;
}

export function toSamples(history: readonly VariableHistorySample[]): Sample[] {
  return history.map((s) => ({ t: parseApiTime(s.timestamp), value: s.value })).filter((s) => Number.isFinite(s.t)).sort((a, b) => a.t - b.t);
}

/** True when every sample with a value holds a number (and at least one does). */
export function isNumeric(samples: readonly Sample[]): boolean {
  let any = false;
  for (const s of samples) {
    if (s.value === null) continue;
    if (numericValue(s.value) === null) return false;
    any = true;
  }
  return any;
}

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 6 });
function formatNumber(n: number | null | undefined, unit: string | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return unit ? `${numberFormat.format(n)} ${unit}` : numberFormat.format(n);
}

function cssVar(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

const CHART_HEIGHT = 280;

/** A zoomed part of the window, in seconds (uPlot's x unit). */
interface Zoom {
  min: number;
  max: number;
}

/** The narrowest keyboard zoom, s. */
const MIN_SPAN_S = 60;

/**
 * The zoom a key asks for on a focused chart, from the current one over the window [lo, hi] (s):
 * + zooms in around the middle, − out, ← → move by a quarter of the view, 0, Home or Escape show the
 * whole window. null: the whole window; undefined: not a zoom key.
 */
export function zoomForKey(key: string, current: Zoom | null, lo: number, hi: number): Zoom | null | undefined {
  const view = current ?? { min: lo, max: hi };
  const span = view.max - view.min;
  const middle = (view.min + view.max) / 2;
  // Kept inside the window; one that covers all of it is the whole window.
  const clamp = (min: number, max: number): Zoom | null => {
    const width = Math.min(max - min, hi - lo);
    if (width >= hi - lo) return null;
    const start = Math.min(Math.max(min, lo), hi - width);
    return { min: start, max: start + width };
  };
  switch (key) {
    case '+':
    case '=':
      return clamp(middle - Math.max(span / 4, MIN_SPAN_S / 2), middle + Math.max(span / 4, MIN_SPAN_S / 2));
    case '-':
    case '_':
      return clamp(middle - span, middle + span);
    case 'ArrowLeft':
      return current ? clamp(view.min - span / 4, view.max - span / 4) : null;
    case 'ArrowRight':
      return current ? clamp(view.min + span / 4, view.max + span / 4) : null;
    case '0':
    case 'Home':
    case 'Escape':
      return null;
    default:
      return undefined;
  }
}

function TimeChart({ samples, label, unit, from, to }: { samples: Sample[]; label: string; unit?: string; from: number; to: number }) {
  const box = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  // Drag across the chart to zoom into that time span; double-click it (or "Show the whole window") to come back.
  const zoomRef = useRef<Zoom | null>(null);
  const [zoom, setZoom] = useState<Zoom | null>(null);
  const applyZoom = (next: Zoom | null) => {
    zoomRef.current = next;
    setZoom(next);
    plotRef.current?.setScale('x', next ?? { min: from / 1000, max: to / 1000 });
  };

  const ys = useMemo(() => samples.map((s) => numericValue(s.value)), [samples]);
  const data = useMemo<uPlot.AlignedData>(() => [samples.map((s) => s.t / 1000), ys], [samples, ys]);
  // A new window or new samples show the whole window again.
  useEffect(() => {
    zoomRef.current = null;
    setZoom(null);
  }, [data, from, to]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const line = cssVar('--chart-line', '#1f6feb');
    const axis = cssVar('--text-muted', '#555');
    const grid = cssVar('--chart-grid', '#e3e6ea');
    const width = () => Math.max(240, Math.floor(el.clientWidth));
    const opts: uPlot.Options = {
      width: width(),
      height: CHART_HEIGHT,
      // The window asked for, whatever part of it has samples; or the part zoomed into.
      scales: { x: { time: true, range: () => (zoomRef.current ? [zoomRef.current.min, zoomRef.current.max] : [from / 1000, to / 1000]) } },
      series: [
        { label: `Time (${timeZoneName()})`, value: (_u, v) => (v === null || v === undefined ? '—' : localTime(v * 1000)) },
        {
          label,
          stroke: line,
          width: 2,
          fill: cssVar('--chart-fill', 'rgba(31, 111, 235, 0.08)'),
          points: { show: samples.length <= 150, size: 5, fill: line },
          value: (_u, v) => formatNumber(v, unit),
        },
      ],
      axes: [
        { stroke: axis, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
        { stroke: axis, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 64, values: (_u, ticks) => ticks.map((v) => numberFormat.format(v)) },
      ],
      // The selection is ours to turn into a zoom (uPlot's own would fight the fixed window).
      cursor: { focus: { prox: 24 }, drag: { x: true, y: false, setScale: false } },
      legend: { live: true },
      hooks: {
        setSelect: [
          (u) => {
            if (u.select.width < 4) return;
            const min = u.posToVal(u.select.left, 'x');
            const max = u.posToVal(u.select.left + u.select.width, 'x');
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            applyZoom({ min, max });
          },
        ],
      },
    };
    const plot = new uPlot(opts, data, el);
    plotRef.current = plot;
    const reset = () => applyZoom(null);
    plot.over.addEventListener('dblclick', reset);
    const resize = new ResizeObserver(() => {
      if (plot.width !== width()) plot.setSize({ width: width(), height: CHART_HEIGHT });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.over.removeEventListener('dblclick', reset);
      plot.destroy();
      plotRef.current = null;
    };
  }, [data, label, unit, from, to]);


  const values = ys.filter((v): v is number => v !== null);
  const last = values.length ? values[values.length - 1] : null;
  const summary =
    `Line chart of ${label}: ${samples.length} sample${samples.length === 1 ? '' : 's'}` +
    (values.length ? `, from ${formatNumber(Math.min(...values), unit)} to ${formatNumber(Math.max(...values), unit)}, last ${formatNumber(last, unit)}` : '') +
    '. The samples are also in the table below.';
  const onKey = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const next = zoomForKey(event.key, zoomRef.current, from / 1000, to / 1000);
    if (next === undefined) return;
    event.preventDefault();
    applyZoom(next);
  };
  const zoomed = zoom ? samples.filter((s) => s.t / 1000 >= zoom.min && s.t / 1000 <= zoom.max).length : null;
  return (
    <>
      <div
        ref={box}
        class="chart-box"
        role="img"
        tabIndex={0}
        aria-label={summary}
        aria-describedby="zoom-keys"
        aria-keyshortcuts="+ - ArrowLeft ArrowRight 0 Escape"
        onKeyDown={onKey}
        data-zoomed={zoom ? 'true' : undefined}
      />
      <p class="meta zoom-line" role="status">
        {zoom ? (
          <>
            <span>
              Zoomed to {localTime(zoom.min * 1000)} – {localTime(zoom.max * 1000)} ({zoomed} sample{zoomed === 1 ? '' : 's'}).
            </span>
            <button type="button" onClick={() => applyZoom(null)}>
              Show the whole window
            </button>
          </>
        ) : null}
      </p>
      <p class="hint" id="zoom-keys">
        Drag across the chart to zoom in; double-click it to zoom out. From the keyboard: focus the chart, then <kbd>+</kbd> / <kbd>−</kbd> zoom,{' '}
        <kbd>←</kbd> <kbd>→</kbd> move, <kbd>0</kbd> shows the whole window.
      </p>
    </>
  );
}

function SampleTable({ rows, caption, numeric, unit }: { rows: Sample[]; caption: string; numeric: boolean; unit?: string }) {
  return (
    <div class="table-wrap">
      <table class="list samples">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Time ({timeZoneName()})</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s, i) => (
            <tr key={`${s.t}-${i}`}>
              <td class="mono">{localTime(s.t)}</td>
              <td class={numeric ? 'mono num' : 'mono'}>{s.value === null ? <em>no value</em> : numeric ? formatNumber(numericValue(s.value), unit) : s.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The samples where the value changed (the first one included), newest first. */
export function changesOf(samples: readonly Sample[]): Sample[] {
  const changes: Sample[] = [];
  for (const s of samples) if (changes.length === 0 || changes[changes.length - 1]!.value !== s.value) changes.push(s);
  return changes.reverse();
}

export function HistoryView({ samples, label, unit, from, to }: { samples: Sample[]; label: string; unit?: string; from: number; to: number }) {
  if (samples.length === 0) {
    return (
      <p class="notice" data-points="0">
        No sample between {localTime(from)} and {localTime(to)}.
      </p>
    );
  }
  if (isNumeric(samples)) {
    const newestFirst = [...samples].reverse();
    return (
      <figure class="chart" data-points={samples.length} data-kind="number">
        <TimeChart samples={samples} label={label} unit={unit} from={from} to={to} />
        <figcaption>
          {samples.length} sample{samples.length === 1 ? '' : 's'} from {localTime(samples[0]!.t)} to {localTime(samples[samples.length - 1]!.t)}. Hover or touch the chart
          for values.
        </figcaption>
        <details class="samples-details">
          <summary>Samples as a table ({samples.length})</summary>
          <SampleTable rows={newestFirst} caption={`Samples of ${label}, newest first`} numeric unit={unit} />
        </details>
      </figure>
    );
  }
  const changes = changesOf(samples);
  return (
    <div class="changes" data-points={samples.length} data-kind="text">
      <SampleTable
        rows={changes}
        caption={`${changes.length} change${changes.length === 1 ? '' : 's'} in ${samples.length} sample${samples.length === 1 ? '' : 's'}, newest first`}
        numeric={false}
      />
    </div>
  );
}
