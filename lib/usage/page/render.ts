/**
 * The usage page (issue 46) as one HTML document from a UsageView: totals, calls and tokens over time per agent, the
 * top callers, refusals by reason, errors by cause and earnings. Server-rendered, no script at all (the window switch
 * is plain links), one style sheet whose hash the CSP names; every label is data and escaped. Fits 375 px: tables
 * wrap their labels, charts scale to the width.
 */

import { createHash } from 'node:crypto';
import { escapeHtml } from '../../auth/authorization-server/replies.js';
import type { UsageView, UsageWindow } from '../view.js';
import { bar, colourOf, count, swatch, timeChart } from './charts.js';

export const USAGE_WINDOWS: readonly UsageWindow[] = ['hour', 'day', 'month'];
const WINDOW_NAMES: Record<UsageWindow, string> = { hour: 'Last hour', day: 'Last 24 hours', month: 'Last 30 days' };

const STYLE = [
  'body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;padding:.5rem 1rem 2rem;max-width:64rem;color:#1a1a1a}',
  'h1{font-size:1.4rem;margin:.6rem 0}h2{font-size:1.1rem;margin:1.6rem 0 .4rem}',
  'nav a{display:inline-block;margin:0 .8rem .4rem 0}nav a[aria-current]{font-weight:700;text-decoration:none;color:inherit}',
  '.meta,.note,.axis{color:#555;font-size:.85rem}.axis{display:flex;justify-content:space-between;gap:1rem;margin:.1rem 0}',
  '#totals{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.5rem;margin:0}',
  '#totals div{border:1px solid #ddd;border-radius:.3rem;padding:.4rem .6rem}#totals dt{font-size:.8rem;color:#555}',
  '#totals dd{margin:0;font-size:1.25rem;font-variant-numeric:tabular-nums}',
  'svg.time{display:block;width:100%;height:10rem;border-bottom:1px solid #999}',
  'svg.time .grid{stroke:#e4e4e4;stroke-width:1;vector-effect:non-scaling-stroke}svg.time .bucket{fill:transparent}',
  'svg.time .bucket:hover{fill:rgba(0,0,0,.06)}',
  '.legend{list-style:none;padding:0;margin:.3rem 0;display:flex;flex-wrap:wrap;gap:.2rem 1rem}',
  'svg.swatch{width:.8rem;height:.8rem;vertical-align:-.1rem;margin-right:.3rem}',
  'table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}',
  'th,td{text-align:left;padding:.25rem .4rem;border-bottom:1px solid #eee;vertical-align:middle}',
  'td.n,th.n{text-align:right}td.n{white-space:nowrap}td.label{overflow-wrap:anywhere}',
  'td.chart{width:25%;min-width:3rem}svg.bar{display:block;width:100%;height:.8rem}',
  '@media (max-width:30rem){.wide{display:none}td.chart{width:20%}table{font-size:.85rem}th,td{padding:.25rem .2rem}}',
].join('');

/** The CSP source of the style sheet above: the page's only inline content, allowed by hash (no 'unsafe-inline'). */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** The page's CSP: nothing but its own style sheet; no script, no image, no form, no frame, no base. */
export const USAGE_CSP = `default-src 'none'; style-src ${STYLE_HASH}; img-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`;

const e = escapeHtml;

/** A bucket's start as people read it in this window, in UTC. */
function timeLabelOf(window: UsageWindow): (t: string) => string {
  return (t) => {
    const iso = new Date(t).toISOString();
    return window === 'month' ? iso.slice(0, 10) : `${window === 'day' ? iso.slice(5, 10) + ' ' : ''}${iso.slice(11, 16)}`;
  };
}

const fullTime = (t: string) => `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function totals(view: UsageView): string {
  const t = view.totals;
  const cells: Array<[key: string, label: string, value: string]> = [
    ['calls', 'Calls', count(t.calls)],
    ['errors', 'Errors', count(t.errors)],
    ['refusals', 'Refused', count(t.refusals)],
    ['inputTokens', 'Input tokens', count(t.inputTokens)],
    ['outputTokens', 'Output tokens', count(t.outputTokens)],
    ['unknownUsageCalls', 'Calls with unknown usage', count(t.unknownUsageCalls)],
    ['earnedUsd', 'Earned (USD)', e(t.earnedUsd)],
  ];
  return `<dl id="totals">${cells.map(([key, label, value]) => `<div><dt>${label}</dt><dd data-key="${key}">${value}</dd></div>`).join('')}</dl>`;
}

type Row = { label: string; extra?: string[]; value: number; cells: string[] };

/** A table whose rows carry a bar of `value` against the largest; `head` names the columns after the label. */
function barTable(id: string, headLabel: string, head: string[], rows: Row[], wide: number[] = []): string {
  const max = Math.max(0, ...rows.map((r) => r.value));
  const cls = (i: number) => (wide.includes(i) ? 'n wide' : 'n');
  const header = `<tr><th>${headLabel}</th><th class="chart"><span class="note">share</span></th>${head.map((h, i) => `<th class="${cls(i)}">${h}</th>`).join('')}</tr>`;
  const body = rows.map((r) => `<tr><td class="label">${e(r.label)}${(r.extra ?? []).map((x) => ` <span class="note">${e(x)}</span>`).join('')}</td>`
    + `<td class="chart">${bar(r.value, max)}</td>${r.cells.map((c, i) => `<td class="${cls(i)}">${c}</td>`).join('')}</tr>`).join('');
  return `<table id="${id}"><thead>${header}</thead><tbody>${body}</tbody></table>`;
}

/** Reason or cause → count, largest first, as a bar table. */
function countTable(id: string, headLabel: string, counts: Record<string, number>): string {
  const rows = Object.entries(counts).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (rows.length === 0) return `<p class="note" id="${id}">None in this window.</p>`;
  return barTable(id, headLabel, ['Count'], rows.map(([label, n]) => ({ label, value: n, cells: [count(n)] })));
}

const sum = (points: UsageView['series'][number]['points'], pick: (p: (typeof points)[number]) => number) => points.reduce((a, p) => a + pick(p), 0);

type Series = UsageView['series'][number];

/** The most lines a chart draws, one colour each; past it the agents with the fewest calls share one line. */
export const MAX_CHART_LINES = 8;

/** The lines to draw: every agent, or the busiest and one line summing the rest (named by how many it holds). */
function chartLines(series: Series[]): Series[] {
  if (series.length <= MAX_CHART_LINES) return series;
  const busiest = [...series].sort((a, b) => sum(b.points, (p) => p.calls) - sum(a.points, (p) => p.calls)).slice(0, MAX_CHART_LINES - 1);
  const rest = series.filter((s) => !busiest.includes(s));
  const points = rest[0]!.points.map((p, i) => rest.reduce((acc, s) => ({
    t: p.t, calls: acc.calls + s.points[i]!.calls, inputTokens: acc.inputTokens + s.points[i]!.inputTokens, outputTokens: acc.outputTokens + s.points[i]!.outputTokens,
  }), { t: p.t, calls: 0, inputTokens: 0, outputTokens: 0 }));
  return [...series.filter((s) => busiest.includes(s)), { agent: `${rest.length} others`, points }];
}

function overTime(view: UsageView): string {
  if (view.series.length === 0) return '<p class="note" id="no-calls">No calls in this window.</p>';
  const label = timeLabelOf(view.window);
  const lines = chartLines(view.series);
  const first = lines[0]!.points;
  const axis = first.length ? `<p class="axis"><span>${e(fullTime(first[0]!.t))}</span><span>${e(fullTime(first.at(-1)!.t))}</span></p>` : '';
  const legend = (pick: (p: (typeof first)[number]) => number, unit: string) => `<ul class="legend">${lines.map((s, i) =>
    `<li>${swatch(colourOf(i))}${e(s.agent)} <span class="note">${count(sum(s.points, pick))} ${unit}</span></li>`).join('')}</ul>`;
  const tokens = (p: (typeof first)[number]) => p.inputTokens + p.outputTokens;
  const calls = (p: (typeof first)[number]) => p.calls;
  // An agent folded into the shared line wears its colour in the table.
  const colourIn = (s: Series) => colourOf(lines.includes(s) ? lines.indexOf(s) : lines.length - 1);
  const perAgent = view.series.map((s) => `<tr><td class="label">${swatch(colourIn(s))}${e(s.agent)}</td>`
    + `<td class="n">${count(sum(s.points, calls))}</td><td class="n">${count(sum(s.points, (p) => p.inputTokens))}</td>`
    + `<td class="n">${count(sum(s.points, (p) => p.outputTokens))}</td></tr>`).join('');
  const per = e(bucketName(view.bucketSeconds));
  const peak = (pick: (p: (typeof first)[number]) => number) => count(Math.max(0, ...lines.flatMap((s) => s.points.map(pick))));
  return `<h3 class="note">Calls per ${per}, the top line ${peak(calls)}</h3>${legend(calls, 'calls')}<div id="calls-chart">${timeChart(lines, calls, 'calls', label)}</div>${axis}`
    + `<h3 class="note">Tokens (input + output) per ${per}, the top line ${peak(tokens)}</h3>${legend(tokens, 'tokens')}<div id="tokens-chart">${timeChart(lines, tokens, 'tokens', label)}</div>${axis}`
    + `<table id="agents"><thead><tr><th>Agent or tool</th><th class="n">Calls</th><th class="n">Input tokens</th><th class="n">Output tokens</th></tr></thead><tbody>${perAgent}</tbody></table>`;
}

function bucketName(seconds: number): string {
  if (seconds === 60) return 'minute';
  if (seconds === 3600) return 'hour';
  if (seconds === 86400) return 'day';
  return `${seconds} s`;
}

function callers(view: UsageView): string {
  if (view.topCallers.length === 0) return '<p class="note" id="callers">No callers in this window.</p>';
  const rows = view.topCallers.map((c) => ({
    label: c.label,
    extra: [c.kind],
    value: c.inputTokens + c.outputTokens,
    cells: [count(c.calls), count(c.inputTokens), count(c.outputTokens)],
  }));
  const table = barTable('callers', 'Caller', ['Calls', 'Input tokens', 'Output tokens'], rows, [1, 2]);
  const truncated = view.topCallersTruncated ? `<p class="note" id="callers-truncated">Only the top ${view.topCallers.length} callers are kept; the totals count every call.</p>` : '';
  return table + truncated;
}

function earnings(view: UsageView): string {
  if (view.earnings.length === 0) return `<p class="note" id="earnings">No paid calls in this window (or no prices are configured).</p>`;
  const rows = view.earnings.map((r) => ({ label: r.agent, value: Number(r.usd), cells: [count(r.paidCalls), e(r.usd)] }));
  return barTable('earnings', 'Agent or tool', ['Paid calls', 'USD'], rows);
}

/** The page for `view`; `notes` are sentences for the operator (the store this instance reads, a local open page). */
export function renderUsagePage(view: UsageView, notes: readonly string[] = []): string {
  const nav = USAGE_WINDOWS.map((w) => `<a href="?window=${w}"${w === view.window ? ' aria-current="page"' : ''}>${WINDOW_NAMES[w]}</a>`).join('');
  const unknown = view.totals.unknownUsageCalls > 0
    ? `<p class="note" id="unknown-usage">${count(view.totals.unknownUsageCalls)} call(s) spent tokens their upstream did not report: the token numbers are incomplete.</p>` : '';
  const body = [
    `<header><h1>Usage <span class="note">agent-mcp</span></h1><nav aria-label="Window">${nav}</nav>`,
    `<p class="meta">${e(fullTime(view.from))} to ${e(fullTime(view.to))}, one point per ${e(bucketName(view.bucketSeconds))}; generated ${e(fullTime(view.generatedAt))}. `
      + `<a href="/usage.json?window=${view.window}">The same as JSON</a>.</p>`,
    ...notes.map((n) => `<p class="note">${e(n)}</p>`),
    '</header><main>',
    `<section><h2>Totals</h2>${totals(view)}${unknown}</section>`,
    `<section><h2>Calls and tokens over time</h2>${overTime(view)}</section>`,
    `<section><h2>Top callers by tokens</h2>${callers(view)}</section>`,
    `<section><h2>Refusals by reason</h2>${countTable('refusals', 'Reason', view.refusals)}</section>`,
    `<section><h2>Errors by cause</h2>${countTable('errors', 'Cause', view.errors)}</section>`,
    `<section><h2>Earnings</h2>${earnings(view)}</section>`,
    '</main>',
  ].join('');
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">'
    + `<meta name="referrer" content="no-referrer"><title>Usage · ${WINDOW_NAMES[view.window]} · agent-mcp</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}
