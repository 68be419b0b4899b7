/**
 * The usage page in a real headless Chromium with JavaScript off (scripts/chromium.mjs, playwright-core), after real
 * calls through /mcp over loopback HTTP: two API keys call two in-process agents that report the tokens they spend
 * (metered-agent.ts), and an admin key reads the page. The numbers in the tables and in the charts' per-bucket titles
 * are the calls made; the JSON says the same; the window switch works as plain links; the page fits 375 px and
 * 1280 px (screenshots under .cache/artifacts/usage/); its CSP blocks nothing it needs; a caller without the right
 * gets 401/403 and a page with no number.
 */

import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findChromium } from '../../../scripts/chromium.mjs';
import type { UsageView } from '../../../lib/usage/view.js';
import { bearer, keyLine, mintTestKey } from '../../support/api-keys.js';
import { createMeteredAgent } from '../../support/metered-agent.js';
import { POST_HEADERS } from '../../support/server.js';
import { startUsageServer, type UsageServer } from '../../support/usage-server.js';

const ARTIFACTS = fileURLToPath(new URL('../../../.cache/artifacts/usage/', import.meta.url));
const admin = mintTestKey();
const alice = mintTestKey();
const bob = mintTestKey();
/** alice may make 3 calls a minute (her key's own rate): her fourth is refused before it runs. */
const KEYS = [keyLine('admin', admin, 'scopes=usage:read'), keyLine('alice', alice, 'rate=3/1m'), keyLine('bob', bob)].join('\n');

/** The calls made: who, to which agent, spending what (metered-agent.ts plans: requests x input+output), and how it ends. */
const CALLS: Array<{ key: string; agent: string; plan: string; ends: 'ok' | 'error' | 429 }> = [
  ...Array.from({ length: 3 }, () => ({ key: alice, agent: 'alpha', plan: '2x100+50', ends: 'ok' as const })),
  ...Array.from({ length: 2 }, () => ({ key: bob, agent: 'beta', plan: '1x1000+500', ends: 'ok' as const })),
  { key: bob, agent: 'alpha', plan: '1xunknown', ends: 'ok' },
  { key: bob, agent: 'beta', plan: 'not a plan', ends: 'error' },
  { key: alice, agent: 'alpha', plan: '1x1+1', ends: 429 },
];
const EXPECTED = {
  calls: 7,
  errors: 1,
  refusals: { 'rate-limit': 1 },
  // The 1xunknown call, and the failed turn, which said nothing of its usage: unknown, never none (docs/architecture.md rule 17).
  unknownUsageCalls: 2,
  inputTokens: 3 * 200 + 2 * 1000,
  outputTokens: 3 * 100 + 2 * 500,
  agents: { alpha: { calls: 4, inputTokens: 600, outputTokens: 300 }, beta: { calls: 3, inputTokens: 2000, outputTokens: 1000 } },
  callers: { alice: { calls: 3 }, bob: { calls: 4 } },
};

let server: UsageServer;
let browser: Browser;

async function call(key: string, agent: string, message: string, id: number, ends: 'ok' | 'error' | 429): Promise<void> {
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { ...POST_HEADERS, 'mcp-protocol-version': '2025-11-25', ...bearer(key) },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { agent_id: agent, message } } }),
  });
  expect(response.status).toBe(ends === 429 ? 429 : 200);
  const reply = await response.json();
  if (ends !== 429) expect(Boolean(reply.result.isError)).toBe(ends === 'error');
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startUsageServer({ MCP_API_KEYS: KEYS }, {
    additions: { agents: [createMeteredAgent('alpha').definition, createMeteredAgent('beta').definition] },
  });
  for (const [i, c] of CALLS.entries()) await call(c.key, c.agent, c.plan, i + 1, c.ends);
  browser = await chromium.launch({
    executablePath: await findChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A browser context with JavaScript off, sending `key` on every request (as an operator's header extension would). */
async function contextFor(width: number, key?: string): Promise<BrowserContext> {
  return browser.newContext({
    javaScriptEnabled: false,
    viewport: { width, height: 900 },
    ...(key ? { extraHTTPHeaders: bearer(key) } : {}),
  });
}

const number = (text: string | null) => Number((text ?? '').replace(/,/g, '').trim());

/** The rows of a table as text cells. */
const rowsOf = (page: Page, selector: string) =>
  page.$$eval(`${selector} tbody tr`, (rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));

/** What the charts' per-bucket titles say, summed per agent: `10:05: alpha 3, beta 0 calls`. */
async function chartSums(page: Page, chart: string): Promise<Record<string, number>> {
  const titles = await page.$$eval(`${chart} rect.bucket title`, (ts) => ts.map((t) => t.textContent ?? ''));
  const sums: Record<string, number> = {};
  for (const title of titles) {
    const parts = title.replace(/^[^:]+:\d\d: /, '').replace(/ (calls|tokens)$/, '').split(', ');
    for (const part of parts) {
      const [, agent, value] = /^(.+) ([\d,]+)$/.exec(part)!;
      sums[agent!] = (sums[agent!] ?? 0) + number(value!);
    }
  }
  return sums;
}

async function openPage(width: number, key: string | undefined, path = '/usage?window=hour'): Promise<{ page: Page; status: number; csp: string[] }> {
  const context = await contextFor(width, key);
  const page = await context.newPage();
  const csp: string[] = [];
  page.on('console', (message) => { if (/Content Security Policy/i.test(message.text())) csp.push(message.text()); });
  const response = await page.goto(`${server.url}${path}`);
  return { page, status: response!.status(), csp };
}

describe('the usage page after real calls, JavaScript off', () => {
  test.each([1280, 375])('at %i px: the totals, the per-agent table and the charts\' numbers are the calls made', async (width) => {
    const { page, status, csp } = await openPage(width, admin);
    expect(status).toBe(200);
    expect(await page.evaluate(() => document.scripts.length)).toBe(0);
    const totals = Object.fromEntries(await page.$$eval('#totals dd', (dds) => dds.map((dd) => [dd.getAttribute('data-key'), dd.textContent])));
    expect(number(totals.calls)).toBe(EXPECTED.calls);
    expect(number(totals.inputTokens)).toBe(EXPECTED.inputTokens);
    expect(number(totals.outputTokens)).toBe(EXPECTED.outputTokens);
    expect(number(totals.errors)).toBe(EXPECTED.errors);
    expect(number(totals.refusals)).toBe(1);
    expect(number(totals.unknownUsageCalls)).toBe(EXPECTED.unknownUsageCalls);
    expect(await page.textContent('#unknown-usage')).toContain('2 call(s) spent tokens their upstream did not report');
    expect(Object.fromEntries((await rowsOf(page, '#refusals')).map(([reason, , n]) => [reason, number(n!)]))).toEqual(EXPECTED.refusals);
    const errors = await rowsOf(page, '#errors');
    expect(errors.map(([, , n]) => number(n!))).toEqual([1]);

    const agents = Object.fromEntries((await rowsOf(page, '#agents')).map(([name, calls, input, output]) =>
      [name, { calls: number(calls!), inputTokens: number(input!), outputTokens: number(output!) }]));
    expect(agents).toEqual(EXPECTED.agents);
    expect(await chartSums(page, '#calls-chart')).toEqual({ alpha: 4, beta: 3 });
    expect(await chartSums(page, '#tokens-chart')).toEqual({ alpha: 900, beta: 3000 });

    // Each caller's row: its label names the key, never the key itself; the calls are its own.
    const callers = await rowsOf(page, '#callers');
    expect(callers).toHaveLength(2);
    for (const [who, expected] of Object.entries(EXPECTED.callers)) {
      const row = callers.find(([label]) => label!.includes(who));
      expect(row, who).toBeDefined();
      expect(number(row![2]!)).toBe(expected.calls);
    }
    expect(await page.content()).not.toContain('agentmcp_');

    // The page fits: nothing scrolls sideways, the style sheet the CSP allows is applied, nothing was blocked.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    expect(await page.$eval('#totals', (el) => getComputedStyle(el).display)).toBe('grid');
    expect(csp).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}usage-${width}.png`, fullPage: true });
    await page.context().close();
  }, 60_000);

  test('the JSON is what the page shows', async () => {
    const view = await (await fetch(`${server.url}/usage.json?window=hour`, { headers: bearer(admin) })).json() as UsageView;
    expect(view.totals).toMatchObject({ calls: EXPECTED.calls, inputTokens: EXPECTED.inputTokens, outputTokens: EXPECTED.outputTokens });
    const { page } = await openPage(1280, admin);
    const totals = Object.fromEntries(await page.$$eval('#totals dd', (dds) => dds.map((dd) => [dd.getAttribute('data-key'), dd.textContent])));
    for (const [key, value] of Object.entries(view.totals)) expect(totals[key], key).toBe(typeof value === 'number' ? value.toLocaleString('en-US') : value);
    const agents = await rowsOf(page, '#agents');
    expect(agents.map(([name]) => name)).toEqual(view.series.map((s) => s.agent));
    for (const s of view.series) {
      const row = agents.find(([name]) => name === s.agent)!;
      expect(number(row[1]!)).toBe(s.points.reduce((a, p) => a + p.calls, 0));
    }
    const callers = await rowsOf(page, '#callers');
    expect(callers.map(([label]) => label)).toEqual(view.topCallers.map((c) => `${c.label} ${c.kind}`));
    expect(callers.map(([, , calls]) => number(calls!))).toEqual(view.topCallers.map((c) => c.calls));
    const counts = (rows: string[][]) => Object.fromEntries(rows.map(([label, , n]) => [label, number(n!)]));
    expect(counts(await rowsOf(page, '#refusals'))).toEqual(view.refusals);
    expect(counts(await rowsOf(page, '#errors'))).toEqual(view.errors);
    await page.context().close();
  }, 60_000);

  test('the window switch is plain links: each window loads with JavaScript off and counts the same calls', async () => {
    const { page } = await openPage(1280, admin);
    for (const [name, window] of [['Last 24 hours', 'day'], ['Last 30 days', 'month'], ['Last hour', 'hour']] as const) {
      await page.click(`nav a:text-is("${name}")`);
      expect(new URL(page.url()).searchParams.get('window')).toBe(window);
      expect(await page.getAttribute(`nav a:text-is("${name}")`, 'aria-current')).toBe('page');
      expect(number(await page.textContent('#totals dd[data-key=calls]'))).toBe(EXPECTED.calls);
    }
    await page.context().close();
  }, 60_000);
});

describe('a caller without the right sees no number', () => {
  test.each([
    ['no token', 401, undefined],
    ['a key without usage:read, not named in USAGE_ADMINS', 403, alice],
  ])('%s: %i and a body with nothing of the view', async (_, expected, key) => {
    for (const path of ['/usage', '/usage.json']) {
      const { page, status } = await openPage(375, key, path);
      expect(status).toBe(expected);
      const text = await page.textContent('body');
      expect(text).not.toMatch(/Totals|alpha|beta|alice|bob|totals/);
      await page.context().close();
    }
  }, 60_000);
});
