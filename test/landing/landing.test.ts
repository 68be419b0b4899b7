/** The landing page in a real headless Chromium (Debian's, driven by playwright-core; no browser download). */

import { chromium, type BrowserContext } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalServer } from '../../scripts/local-server.js';

let browser: BrowserContext;
let server: { url: string; close(): Promise<void> };
const profile = mkdtempSync(`${tmpdir()}/agent-mcp-chromium-`);

beforeAll(async () => {
  server = await startLocalServer({ port: 0 });
  // A fresh profile and no background networking: this machine reaches nothing but loopback.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(profile, { recursive: true, force: true });
});

describe('the landing page at /', () => {
  test('shows the MCP URL, the auth mode, the tools and agents it asked the server for, and client set-up', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.textContent('#tools'), { timeout: 15_000 }).toContain('chat_with_agent');
    await expect.poll(() => page.textContent('#agents'), { timeout: 15_000 }).toContain('Demo agent');
    expect(await page.textContent('#mcp-url')).toBe(`${server.url}/mcp`);
    await expect.poll(() => page.textContent('#auth-mode'), { timeout: 15_000 }).toBe('none (public)');
    expect(await page.textContent('#versions')).toContain('2026-07-28');
    expect(await page.textContent('#setup-claude-code')).toBe(`claude mcp add --transport http agent-mcp ${server.url}/mcp`);
    expect(JSON.parse((await page.textContent('#setup-cursor'))!)).toEqual({ mcpServers: { 'agent-mcp': { url: `${server.url}/mcp` } } });
    expect(JSON.parse((await page.textContent('#setup-vscode'))!)).toEqual({ servers: { 'agent-mcp': { type: 'http', url: `${server.url}/mcp` } } });
    expect(await page.textContent('#setup-inspector')).toContain('@modelcontextprotocol/inspector');
    await page.screenshot({ path: `${tmpdir()}/agent-mcp-landing.png`, fullPage: true });
    await page.close();
  });
});
