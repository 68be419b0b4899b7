/**
 * The usage page's HTML from a UsageView (lib/usage/page/render.ts): labels are data and come out escaped wherever
 * they land (table cells, legends, chart titles, attributes); the only inline content is the style sheet the CSP
 * names by hash; there is no script at all; the window switch is plain links.
 */

import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { MAX_CHART_LINES, renderUsagePage, STYLE_HASH, USAGE_CSP } from '../../../lib/usage/page/render.js';
import type { UsageView } from '../../../lib/usage/view.js';

const HOSTILE = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>&amp;';

function viewWith(label: string): UsageView {
  const t0 = Date.parse('2026-12-06T10:00:00Z');
  const points = Array.from({ length: 60 }, (_, i) => ({ t: new Date(t0 + i * 60_000).toISOString(), calls: i === 59 ? 2 : 0, inputTokens: i === 59 ? 30 : 0, outputTokens: i === 59 ? 12 : 0 }));
  return {
    window: 'hour', from: new Date(t0).toISOString(), to: new Date(t0 + 3_600_000).toISOString(), bucketSeconds: 60, generatedAt: new Date(t0 + 3_600_000).toISOString(),
    totals: { calls: 2, errors: 1, refusals: 3, inputTokens: 30, outputTokens: 12, unknownUsageCalls: 1, earnedUsd: '0.0125' },
    series: [{ agent: label, points }],
    topCallers: [{ label, kind: label, calls: 2, inputTokens: 30, outputTokens: 12 }],
    refusals: { [label]: 3 },
    errors: { [label]: 1 },
    earnings: [{ agent: label, usd: '0.0125', paidCalls: 1 }],
    topCallersTruncated: true,
  };
}

describe('the usage page\'s HTML', () => {
  const html = renderUsagePage(viewWith(HOSTILE), [HOSTILE]);

  test('escapes every label: no element, attribute or entity of a label survives', () => {
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('onerror=alert(2)>');
    expect(html).not.toContain('"\'>');
    const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;';
    // The agent's legend, its row, the chart titles, the caller (label and kind), the refusal, the error, the earning, the note.
    expect(html.split(escaped).length - 1).toBeGreaterThanOrEqual(9);
  });

  test('has no script, and its one inline style sheet is the one whose hash the CSP allows', () => {
    const plain = renderUsagePage(viewWith('demo'));
    expect(plain).not.toMatch(/<script|\son\w+=|javascript:/i);
    const styles = [...plain.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1]!);
    expect(styles).toHaveLength(1);
    expect(`'sha256-${createHash('sha256').update(styles[0]!).digest('base64')}'`).toBe(STYLE_HASH);
    expect(USAGE_CSP).toContain(`style-src ${STYLE_HASH};`);
    expect(USAGE_CSP).not.toMatch(/unsafe-inline|script-src/);
    expect(plain).not.toMatch(/\sstyle=/);
  });

  test('switches windows with plain links, the current one marked', () => {
    expect(html).toContain('<a href="?window=hour" aria-current="page">Last hour</a>');
    expect(html).toContain('<a href="?window=day">Last 24 hours</a>');
    expect(html).toContain('<a href="?window=month">Last 30 days</a>');
    expect(html).toContain('<a href="/usage.json?window=hour">');
  });

  test('says when the totals of tokens are incomplete and when the top-callers list dropped callers', () => {
    expect(html).toContain('1 call(s) spent tokens their upstream did not report');
    expect(html).toContain('Only the top 1 callers are kept; the totals count every call.');
  });

  test('past eight agents a chart draws the seven busiest and one line for the rest; the table still lists every agent', () => {
    const base = viewWith('a');
    const series = Array.from({ length: 12 }, (_, k) => ({
      agent: `agent-${k}`,
      points: base.series[0]!.points.map((p, i) => ({ ...p, calls: i === 59 ? k + 1 : 0, inputTokens: 0, outputTokens: 0 })),
    }));
    const page = renderUsagePage({ ...base, series });
    const calls = /<div id="calls-chart">(.*?)<\/div>/.exec(page)![1]!;
    expect(calls.match(/<polyline /g)).toHaveLength(MAX_CHART_LINES);
    // The last bucket's title: agents 5 to 11 (6..12 calls) drawn, agents 0 to 4 (1..5 calls, 15 in all) summed.
    const last = [...calls.matchAll(/<title>([^<]*)<\/title>/g)].at(-1)![1];
    expect(last).toBe('10:59: agent-5 6, agent-6 7, agent-7 8, agent-8 9, agent-9 10, agent-10 11, agent-11 12, 5 others 15 calls');
    for (let k = 0; k < 12; k++) expect(page).toContain(`agent-${k}</td><td class="n">${k + 1}</td>`);
  });

  test('an empty window says so instead of drawing empty charts', () => {
    const empty: UsageView = { ...viewWith('a'), series: [], topCallers: [], refusals: {}, errors: {}, earnings: [], topCallersTruncated: false };
    const page = renderUsagePage(empty);
    expect(page).toContain('No calls in this window.');
    expect(page).not.toContain('<svg class="time"');
  });
});
