/**
 * Small hand-written SVG bar charts (no dependency): one horizontal bar per figure, its value printed
 * at the end of the bar, an optional dashed line for a target. Readable on GitHub in light and dark
 * themes (white background).
 */

/** One bar. */
export interface Bar {
  label: string;
  value: number;
  /** Fill colour; defaults by label: kubeloom blue, client-node grey, ceiling green. */
  color?: string;
}

/** A chart. */
export interface BarChart {
  title: string;
  /** Unit shown after each value, e.g. "events/s". */
  unit: string;
  bars: Bar[];
  /** A dashed vertical line, e.g. a target. */
  marker?: { value: number; label: string };
  /** Whether smaller is better (said in the subtitle). */
  lowerIsBetter?: boolean;
}

const width = 760;
const labelWidth = 250;
const valueWidth = 150;
const barHeight = 24;
const gap = 10;
const top = 58;

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function colorOf(label: string): string {
  const l = label.toLowerCase();
  if (l.includes('client-node')) return '#8c8c8c';
  if (l.includes('ceiling') || l.includes('json.parse') || l.includes('server')) return '#3a9d5d';
  return '#2f6fdf';
}

/** Formats a number with thousands separators and at most 3 significant decimals. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** Renders a chart as an SVG document. */
export function barChartSvg(chart: BarChart): string {
  const max = Math.max(...chart.bars.map((b) => b.value), chart.marker?.value ?? 0) || 1;
  const plot = width - labelWidth - valueWidth - 20;
  const height = top + chart.bars.length * (barHeight + gap) + 20;
  const x = (v: number): number => labelWidth + (v / max) * plot;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="13">`);
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="12" y="24" font-size="16" font-weight="bold" fill="#222">${escape(chart.title)}</text>`);
  out.push(`<text x="12" y="44" fill="#666">${escape(chart.unit)}, ${chart.lowerIsBetter === true ? 'lower' : 'higher'} is better</text>`);
  chart.bars.forEach((b, i) => {
    const y = top + i * (barHeight + gap);
    const w = Math.max(1, x(b.value) - labelWidth);
    out.push(`<text x="${labelWidth - 8}" y="${y + barHeight * 0.68}" text-anchor="end" fill="#222">${escape(b.label)}</text>`);
    out.push(`<rect x="${labelWidth}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" rx="3" fill="${b.color ?? colorOf(b.label)}"/>`);
    out.push(`<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + barHeight * 0.68}" fill="#222">${escape(formatNumber(b.value))}</text>`);
  });
  if (chart.marker !== undefined) {
    const mx = x(chart.marker.value).toFixed(1);
    out.push(`<line x1="${mx}" y1="${top - 6}" x2="${mx}" y2="${height - 14}" stroke="#d0342c" stroke-width="1.5" stroke-dasharray="5,4"/>`);
    out.push(`<text x="${mx}" y="${height - 2}" text-anchor="middle" font-size="11" fill="#d0342c">${escape(chart.marker.label)}</text>`);
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
