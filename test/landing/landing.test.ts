/**
 * The landing page in a real headless Chromium (scripts/chromium.mjs finds it; on Linux the one inside the npm
 * package @sparticuz/chromium), driven by playwright-core: it asks the deployment what it serves, so every
 * preview describes itself.
 */

import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { findChromium } from '../../scripts/chromium.mjs';
import { createProtectedResourceHandler } from '../../lib/auth/metadata.js';
import { createDiscoveryHandler } from '../../lib/discovery/documents.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { keyLine, mintTestKey, startKeyServer } from '../support/api-keys.js';
import { createProtectedApp } from '../support/protected-app.js';

type Server = { url: string; close(): Promise<void> };
const AUTH = { AUTH_ISSUER: 'https://auth.example.com', AUTH_SCOPES: 'agents:chat' };
/** A name the browser resolves to loopback, so a page can be seen as a deployment's (a non-loopback origin) sees it. */
const PUBLIC_HOST = 'agent.example.test';
let browser: BrowserContext;
let open: Server;
let guarded: Server;
let keyed: Server;
const profile = mkdtempSync(`${tmpdir()}/agent-mcp-chromium-`);

beforeAll(async () => {
  open = await startLocalServer({ port: 0 });
  guarded = await startLocalServer({
    port: 0,
    functions: {
      '/api/mcp': createMcpHandler(createProtectedApp(AUTH)),
      '/api/wk-mcp': createDiscoveryHandler(AUTH),
      '/api/wk-oauth-protected-resource': createProtectedResourceHandler(AUTH),
    },
  });
  keyed = await startKeyServer({ MCP_API_KEYS: keyLine('ci', mintTestKey()), MCP_LOG: 'off' });
  // A fresh profile and no background networking: the browser reaches nothing but loopback.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: await findChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([open?.close(), guarded?.close(), keyed?.close()]);
  rmSync(profile, { recursive: true, force: true });
});

async function visit(server: Server, viewport?: { width: number; height: number }, origin = server.url): Promise<Page> {
  const page = await browser.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${origin}/`);
  await expect.poll(() => page.textContent('#auth-mode'), { timeout: 15_000 }).not.toBe('…');
  expect(errors).toEqual([]);
  return page;
}

describe('the landing page of a public server', () => {
  test('shows what the server is, its MCP URL, versions, auth mode, and the tools and agents it asked the server for', async () => {
    const page = await visit(open);
    expect(await page.textContent('h1')).toBe('agent-mcp');
    expect(await page.textContent('.lead')).toContain('Model Context Protocol');
    await expect.poll(() => page.textContent('#tools'), { timeout: 15_000 }).toContain('chat_with_agent');
    await expect.poll(() => page.textContent('#agents'), { timeout: 15_000 }).toContain('Demo agent');
    expect(await page.textContent('#mcp-url')).toBe(`${open.url}/mcp`);
    expect(await page.textContent('#auth-mode')).toBe('none (public)');
    expect(await page.isHidden('#auth-note')).toBe(true);
    expect(await page.textContent('#versions')).toContain('2026-07-28');
    await page.screenshot({ path: `${tmpdir()}/agent-mcp-landing.png`, fullPage: true });
    await page.close();
  });

  test('gives copy-paste set-up for Claude Code, Claude, Cursor, VS Code and the Inspector, with this deployment\'s URL', async () => {
    const page = await visit(open);
    const mcpUrl = `${open.url}/mcp`;
    expect(await page.textContent('#setup-claude-code')).toBe(`claude mcp add --transport http agent-mcp ${mcpUrl}`);
    expect(await page.textContent('section:has(#setup-cursor)')).toContain('Add custom connector');
    expect(JSON.parse((await page.textContent('#setup-cursor'))!)).toEqual({ mcpServers: { 'agent-mcp': { url: mcpUrl } } });
    expect(JSON.parse((await page.textContent('#setup-vscode'))!)).toEqual({ servers: { 'agent-mcp': { type: 'http', url: mcpUrl } } });
    expect(await page.textContent('#setup-inspector')).toContain('npx -y --loglevel=error -p node@22 -p @modelcontextprotocol/inspector@latest mcp-inspector');
    expect(await page.textContent('#setup-inspector')).toContain(mcpUrl);
    await page.close();
  });

  test('served from this machine, it says claude.ai needs a public URL; served from a public origin, it does not', async () => {
    const local = await visit(open);
    expect(await local.isVisible('#claude-public')).toBe(true);
    expect(await local.textContent('#claude-public')).toContain('cannot reach this machine');
    await local.close();
    const deployed = await visit(open, undefined, open.url.replace(/localhost|127\.0\.0\.1/, PUBLIC_HOST));
    expect(await deployed.isHidden('#claude-public')).toBe(true);
    expect(await deployed.textContent('#mcp-url')).toBe(`${open.url.replace(/localhost|127\.0\.0\.1/, PUBLIC_HOST)}/mcp`);
    await deployed.close();
  });

  test('the copy button puts the MCP URL on the clipboard', async () => {
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: open.url });
    const page = await visit(open);
    await page.click('[data-copy="mcp-url"]');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`${open.url}/mcp`);
    await page.close();
  });

  test('links the discovery documents, one at a path that needs no /.well-known rewrite; each answers', async () => {
    const page = await visit(open);
    const links = await page.$$eval('#discovery a', (anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
    expect(links).toEqual([`${open.url}/.well-known/mcp.json`, `${open.url}/mcp.json`, `${open.url}/mcp/server-card`, `${open.url}/.well-known/ai-catalog.json`]);
    for (const link of links) expect((await fetch(link)).status).toBe(200);
    await page.close();
  });
});

test('links the operator\'s usage page, a plain link that needs no script', async () => {
  const context = await browser.browser()!.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${open.url}/`);
  expect(await page.getAttribute('#usage-link', 'href')).toBe('/usage');
  expect(await page.$eval('#usage-link', (a) => (a as HTMLAnchorElement).href)).toBe(`${open.url}/usage`);
  await context.close();
});

describe('the landing page of an OAuth-protected server', () => {
  test('says OAuth 2.1 with the authorization server, explains the sign-in, and links the protected resource metadata', async () => {
    const page = await visit(guarded);
    expect(await page.textContent('#auth-mode')).toBe('OAuth 2.1 (https://auth.example.com)');
    expect(await page.isVisible('#auth-note')).toBe(true);
    expect(await page.textContent('#auth-server')).toBe('https://auth.example.com');
    const prm = await page.getAttribute('#prm-link', 'href');
    expect(prm).toBe(`${guarded.url}/mcp/oauth-protected-resource`);
    expect((await (await fetch(prm!)).json()).resource).toBe(`${guarded.url}/mcp`);
    expect(await page.textContent('#discovery')).toContain('oauth-protected-resource');
    expect(await page.textContent('#setup-inspector')).toContain('OAuth');
    await page.close();
  });

  test('does not pretend to list tools it may not see: it says a signed-in client lists them', async () => {
    const page = await visit(guarded);
    await expect.poll(() => page.textContent('#tools'), { timeout: 15_000 }).toContain('needs OAuth');
    await page.screenshot({ path: `${tmpdir()}/agent-mcp-landing-oauth.png`, fullPage: true });
    await page.close();
  });
});

describe('the landing page of a server that takes API keys', () => {
  test('says API keys, gives each client\'s set-up with the header and a placeholder for the key, and no sign-in note', async () => {
    const page = await visit(keyed);
    expect(await page.textContent('#auth-mode')).toBe('API keys (Authorization: Bearer <key>)');
    expect(await page.isVisible('#auth-note')).toBe(false);
    expect(await page.textContent('#setup-claude-code')).toBe(`claude mcp add --transport http agent-mcp ${keyed.url}/mcp --header "Authorization: Bearer <your key>"`);
    expect(JSON.parse((await page.textContent('#setup-cursor'))!)).toEqual({ mcpServers: { 'agent-mcp': { url: `${keyed.url}/mcp`, headers: { Authorization: 'Bearer <your key>' } } } });
    expect(JSON.parse((await page.textContent('#setup-vscode'))!).servers['agent-mcp'].headers).toEqual({ Authorization: 'Bearer <your key>' });
    await expect.poll(() => page.textContent('#tools'), { timeout: 15_000 }).toContain('needs an API key');
    await page.close();
  });
});

describe('the landing page on a phone (390×844)', () => {
  const PHONE = { width: 390, height: 844 };

  test('shows every command and URL whole: each wraps inside its box and nothing scrolls sideways', async () => {
    const page = await visit(open, PHONE);
    await expect.poll(() => page.textContent('#setup-claude-code')).toBe(`claude mcp add --transport http agent-mcp ${open.url}/mcp`);
    const boxes = await page.$$eval('pre, #mcp-url', (elements) => elements.map((el) => ({
      id: el.id,
      scrollWidth: el.scrollWidth,
      clientWidth: el.clientWidth,
      right: el.getBoundingClientRect().right,
    })));
    expect(boxes.map((box) => box.id)).toEqual(expect.arrayContaining(['mcp-url', 'setup-claude-code', 'setup-cursor', 'setup-vscode', 'setup-inspector']));
    for (const box of boxes) {
      expect(box.scrollWidth, box.id).toBeLessThanOrEqual(box.clientWidth);
      expect(box.right, box.id).toBeLessThanOrEqual(PHONE.width);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: `${tmpdir()}/agent-mcp-landing-phone.png`, fullPage: true });
    await page.close();
  });

  test('links the documentation and the source repository once their URL names the owner', async () => {
    const published = await browser.newPage();
    // The page as it is once OWNER is replaced (index.html's comment): served as the real one, with the real script.
    await published.route(`${open.url}/`, async (route) => {
      const html = await (await route.fetch()).text();
      await route.fulfill({ contentType: 'text/html', body: html.replaceAll('github.com/OWNER/', 'github.com/someone/') });
    });
    await published.goto(`${open.url}/`);
    await expect.poll(() => published.isVisible('#repo-link'), { timeout: 15_000 }).toBe(true);
    expect(await published.getAttribute('#docs-link', 'href')).toBe('https://github.com/someone/agent-mcp#readme');
    expect(await published.getAttribute('#repo-link', 'href')).toBe('https://github.com/someone/agent-mcp');
    expect(await published.isVisible('#docs-link')).toBe(true);
    await published.close();
  });

  test('shows no link to the OWNER placeholder, which would answer 404', async () => {
    const page = await visit(open, PHONE);
    const links = await page.$$eval('a', (as) => as.filter((a) => a.checkVisibility()).map((a) => a.href));
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((href) => href.includes('/OWNER/'))).toEqual([]);
    await page.close();
  });

  test('says, next to the Inspector command, that it runs on any Node (it brings the Node 22 the Inspector needs)', async () => {
    const page = await visit(open, PHONE);
    expect(await page.textContent('section:has(#setup-inspector)')).toContain('Runs on any Node.js: the command brings the Node 22');
    await page.close();
  });
});
