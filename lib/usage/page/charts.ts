/**
 * The usage page's charts as inline SVG, drawn on the server: no script, no fonts, nothing fetched. A chart carries
 * no text of its own (SVG text would shrink with the chart on a phone): its numbers are in the HTML beside it and in
 * a <title> per bucket or bar, which a browser shows on hover and a screen reader reads. Every label is data (agent
 * names, caller labels) and is escaped.
 */

import { escapeHtml } from '../../auth/authorization-server/replies.js';
import type { UsageView } from '../view.js';

/** Colours that stay apart for the common colour-vision deficiencies (Okabe–Ito), cycled past eight series. */
export const PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#000000'];
export const colourOf = (index: number) => PALETTE[index % PALETTE.length]!;

const WIDTH = 600;
const HEIGHT = 160;
const PAD = 4;

type Series = UsageView['series'][number];
type Point = Series['points'][number];

/** Whole numbers with thousands separators, the same on every server (no locale). */
export const count = (n: number) => Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Calls or tokens over time, one line per agent; `value` picks the number of a point. A column per bucket holds a
 * <title> with every agent's number at that time.
 */
export function timeChart(series: Series[], value: (p: Point) => number, unit: string, timeLabel: (t: string) => string): string {
  const buckets = series[0]?.points.length ?? 0;
  if (buckets === 0) return '';
  const max = Math.max(1, ...series.flatMap((s) => s.points.map(value)));
  const step = buckets > 1 ? (WIDTH - 2 * PAD) / (buckets - 1) : 0;
  const x = (i: number) => round(PAD + i * step);
  const y = (v: number) => round(HEIGHT - PAD - (v / max) * (HEIGHT - 2 * PAD));
  const grid = [0.25, 0.5, 0.75, 1].map((f) => `<line class="grid" x1="0" x2="${WIDTH}" y1="${y(max * f)}" y2="${y(max * f)}"/>`).join('');
  const lines = series.map((s, i) => {
    const points = s.points.map((p, j) => `${x(j)},${y(value(p))}`).join(' ');
    return `<polyline fill="none" stroke="${colourOf(i)}" stroke-width="2" vector-effect="non-scaling-stroke" points="${points}"/>`;
  }).join('');
  const columns = Array.from({ length: buckets }, (_, j) => {
    const t = series[0]!.points[j]!.t;
    const parts = series.map((s) => `${s.agent} ${count(value(s.points[j]!))}`).join(', ');
    const left = round(Math.max(0, x(j) - step / 2));
    const width = round(buckets > 1 ? step : WIDTH);
    return `<rect class="bucket" x="${left}" y="0" width="${width}" height="${HEIGHT}" data-t="${escapeHtml(t)}">`
      + `<title>${escapeHtml(`${timeLabel(t)}: ${parts} ${unit}`)}</title></rect>`;
  }).join('');
  return `<svg class="time" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${escapeHtml(unit)} over time per agent, at most ${count(max)} in a bucket">`
    + `${grid}${lines}${columns}</svg>`;
}

/** A horizontal bar for a table cell: `value` as a share of `max`. */
export function bar(value: number, max: number, colour = PALETTE[0]!): string {
  const width = max > 0 ? round((Math.max(0, value) / max) * 100) : 0;
  return `<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">`
    + `<rect x="0" y="1" width="${width}" height="8" fill="${colour}"/></svg>`;
}

/** A small square of a series' colour, for a legend. */
export const swatch = (colour: string) =>
  `<svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" fill="${colour}"/></svg>`;
