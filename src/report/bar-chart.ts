import { escapeHtml, formatNumber } from './html';

export interface Series {
  name: string;
  color: string;
  values: number[];
}

export interface BarChartSpec {
  title: string;
  subtitle?: string;
  /** One bar (or group of bars) per category, labelled below the axis. */
  categories: string[];
  series: Series[];
  /** 'stack' piles the series up; 'group' sets them side by side. */
  mode?: 'stack' | 'group';
  /** Logarithmic y axis: for values spanning orders of magnitude (our samples against the paper's). */
  log?: boolean;
  /** Horizontal reference lines, e.g. the paper's average. */
  refLines?: { value: number; label: string; color?: string }[];
  /** A vertical marker between categories, at a fraction of the x axis (e.g. the pass threshold). */
  xMarker?: { fraction: number; label: string };
  yLabel?: string;
  /** Printed on top of each bar: the stack's total. */
  showTotals?: boolean;
  /** Counts: the axis ticks stay whole numbers. */
  integer?: boolean;
}

const W = 560;
const H = 290;
const M = { left: 58, right: 18, top: 58, bottom: 50 };
const PLOT_W = W - M.left - M.right;
const PLOT_H = H - M.top - M.bottom;

function niceCeil(x: number): number {
  if (x <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  return ([1, 2, 2.5, 5, 10].find((m) => m * p >= x) ?? 10) * p;
}

/** The y scale and its ticks, linear or logarithmic. */
function scale(max: number, log: boolean, integer: boolean): { y: (v: number) => number; ticks: number[] } {
  if (log) {
    const top = 10 ** Math.max(1, Math.ceil(Math.log10(Math.max(max, 10))));
    const y = (v: number) => M.top + PLOT_H * (1 - Math.log10(Math.max(v, 1)) / Math.log10(top));
    const ticks = Array.from({ length: Math.log10(top) + 1 }, (_, i) => 10 ** i);
    return { y, ticks };
  }
  // Five equal steps: a top of at least 5 keeps them whole for counts.
  const top = integer ? Math.max(5, niceCeil(max)) : niceCeil(max);
  const y = (v: number) => M.top + PLOT_H * (1 - v / top);
  return { y, ticks: Array.from({ length: 6 }, (_, i) => (top * i) / 5) };
}

/** A static SVG bar chart: drawn here, so the page needs no script or library to show it. */
export function barChart(spec: BarChartSpec): string {
  const mode = spec.mode ?? 'stack';
  const n = spec.categories.length;
  const totals = spec.categories.map((_, i) => spec.series.reduce((a, s) => a + (s.values[i] ?? 0), 0));
  const peaks = mode === 'stack' ? totals : spec.series.flatMap((s) => s.values);
  const max = Math.max(0, ...peaks, ...(spec.refLines ?? []).map((r) => r.value));
  const { y, ticks } = scale(max, spec.log ?? false, spec.integer ?? false);
  const band = PLOT_W / Math.max(n, 1);
  const barW = Math.min(56, band * 0.72);
  const parts: string[] = [];

  parts.push(`<text class="title" x="${M.left}" y="20">${escapeHtml(spec.title)}</text>`);
  if (spec.subtitle) parts.push(`<text class="subtitle" x="${M.left}" y="38">${escapeHtml(spec.subtitle)}</text>`);
  for (const t of ticks) {
    parts.push(`<line class="grid" x1="${M.left}" x2="${W - M.right}" y1="${y(t)}" y2="${y(t)}"/>`);
    parts.push(`<text class="tick" x="${M.left - 6}" y="${y(t) + 4}" text-anchor="end">${formatNumber(t)}</text>`);
  }
  if (spec.yLabel)
    parts.push(
      `<text class="axis-label" transform="translate(14 ${M.top + PLOT_H / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>`,
    );

  const every = Math.ceil(n / 14);
  spec.categories.forEach((category, i) => {
    const x0 = M.left + i * band + (band - barW) / 2;
    let base = 0;
    spec.series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      if (v <= 0) return;
      const [from, to] = mode === 'stack' ? [base, base + v] : [0, v];
      const w = mode === 'stack' ? barW : barW / spec.series.length;
      const x = mode === 'stack' ? x0 : x0 + k * w;
      const top = y(to);
      const height = Math.max(1, y(from) - top);
      parts.push(
        `<rect class="bar" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${w.toFixed(1)}" height="${height.toFixed(1)}" fill="${s.color}"><title>${escapeHtml(`${category} · ${s.name}: ${formatNumber(v)}`)}</title></rect>`,
      );
      base += v;
    });
    if (spec.showTotals && totals[i] > 0) {
      parts.push(
        `<text class="total" x="${(x0 + barW / 2).toFixed(1)}" y="${(y(totals[i]) - 4).toFixed(1)}" text-anchor="middle">${formatNumber(totals[i])}</text>`,
      );
    }
    if (i % every === 0) {
      const label = category.length > 12 ? `${category.slice(0, 11)}…` : category;
      parts.push(
        `<text class="tick" x="${(M.left + i * band + band / 2).toFixed(1)}" y="${H - M.bottom + 16}" text-anchor="middle">${escapeHtml(label)}</text>`,
      );
    }
  });
  if (!n || max === 0)
    parts.push(
      `<text class="empty" x="${M.left + PLOT_W / 2}" y="${M.top + PLOT_H / 2}" text-anchor="middle">no data yet</text>`,
    );

  for (const r of spec.refLines ?? []) {
    const ry = y(r.value).toFixed(1);
    parts.push(
      `<line class="ref" x1="${M.left}" x2="${W - M.right}" y1="${ry}" y2="${ry}" stroke="${r.color ?? '#b91c1c'}"/>`,
    );
    parts.push(
      `<text class="ref-label" x="${W - M.right - 2}" y="${Number(ry) - 4}" text-anchor="end" fill="${r.color ?? '#b91c1c'}">${escapeHtml(r.label)}</text>`,
    );
  }
  if (spec.xMarker) {
    const mx = (M.left + spec.xMarker.fraction * PLOT_W).toFixed(1);
    parts.push(`<line class="ref" x1="${mx}" x2="${mx}" y1="${M.top}" y2="${M.top + PLOT_H}" stroke="#b91c1c"/>`);
    parts.push(
      `<text class="ref-label" x="${Number(mx) - 4}" y="${M.top + 12}" text-anchor="end" fill="#b91c1c">${escapeHtml(spec.xMarker.label)}</text>`,
    );
  }
  parts.push(`<line class="axis" x1="${M.left}" x2="${W - M.right}" y1="${M.top + PLOT_H}" y2="${M.top + PLOT_H}"/>`);

  if (spec.series.length > 1) {
    let lx = M.left;
    for (const s of spec.series) {
      parts.push(
        `<rect x="${lx}" y="${H - 16}" width="10" height="10" fill="${s.color}"/><text class="legend" x="${lx + 14}" y="${H - 7}">${escapeHtml(s.name)}</text>`,
      );
      lx += 24 + s.name.length * 6.2;
    }
  }
  return `<svg class="plot" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(spec.title)}">${parts.join('')}</svg>`;
}
