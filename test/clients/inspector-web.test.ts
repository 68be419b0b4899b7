/**
 * The real MCP Inspector web UI (its backend on Node 22, its page in headless Chromium through playwright-core)
 * against the protected app and the development authorization server: switching the server on sends the
 * browser to sign in; the Inspector registers itself with the redirect URI of the origin it is served from,
 * the browser comes back to its /oauth/callback, and the UI lists the tools the token may call.
 * The Inspector's backend does the MCP requests and the OAuth metadata, registration and token requests; the
 * browser only visits the authorization server's pages.
 */

import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium } from '../../scripts/chromium.mjs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureInspector, ensureNode22 } from '../../scripts/npm-cache.mjs';
import { startAuthzStack, type AuthzStack } from '../support/authz-stack.js';
import {
  BYPASS_HEADER, clientEnv, freePort, isMetadataRequest, scratchDir, startClient, startProtectedStack, type ProtectedStack, type RunningClient,
} from '../support/client-harness.js';

const INSTALL_MS = 240_000;
const UI_MS = 30_000;
let node22: string;
let inspector: string;
let browser: Browser;

beforeAll(async () => {
  node22 = ensureNode22();
  inspector = ensureInspector();
  browser = await chromium.launch({
    executablePath: await findChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, INSTALL_MS);
afterAll(() => browser?.close());

/** The Inspector web UI for one server URL, on free ports; returns its address (with the API token) and process. */
async function startInspectorWeb(mcpUrl: string, extraArgs: string[] = []) {
  const home = scratchDir('inspector-web');
  const token = randomBytes(16).toString('hex');
  const web = startClient(node22, [inspector, '--web', '--transport', 'http', '--server-url', mcpUrl, ...extraArgs], clientEnv(home.path, {
    CLIENT_PORT: String(await freePort()),
    MCP_SANDBOX_PORT: String(await freePort()),
    MCP_AUTO_OPEN_ENABLED: 'false',
    MCP_INSPECTOR_SECRET_STORE: 'memory',
    MCP_INSPECTOR_API_TOKEN: token,
  }));
  const [address] = await web.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\?MCP_INSPECTOR_API_TOKEN=\w+/, UI_MS);
  return { address: new URL(address), web, stop: () => { web.kill(); home.remove(); } };
}

/** A page that reaches loopback only (the UI asks for web fonts) and records every page the top frame asked for. */
async function openPage(url: URL): Promise<{ page: Page; visited: URL[] }> {
  const page = await browser.newPage();
  const visited: URL[] = [];
  await page.route((u) => !['127.0.0.1', 'localhost'].includes(u.hostname), (route) => route.abort());
  // Navigation requests, redirects included (framenavigated reports only where a redirect chain ends).
  page.on('request', (request) => { if (request.isNavigationRequest() && request.frame() === page.mainFrame()) visited.push(new URL(request.url())); });
  await page.goto(url.href);
  return { page, visited };
}

const connectSwitch = (page: Page) => page.getByRole('switch', { name: /Connect or disconnect/ });

describe('the MCP Inspector web UI signs in with OAuth against the development authorization server', () => {
  let stack: ProtectedStack;
  let ui: { address: URL; web: RunningClient; stop(): void };
  beforeAll(async () => {
    stack = await startProtectedStack();
    ui = await startInspectorWeb(stack.mcpUrl);
  }, INSTALL_MS);
  afterAll(async () => {
    ui?.stop();
    await stack?.close();
  });

  test('connecting sends the browser to sign in with the redirect URI <its origin>/oauth/callback; back there, it lists the tools the token may call', async () => {
    const { page, visited } = await openPage(ui.address);
    try {
      await connectSwitch(page).click({ force: true }); // Mantine draws its track over the input
      await page.getByText('Connected', { exact: true }).waitFor({ timeout: UI_MS });

      const authorization = visited.find((url) => url.origin === stack.issuer && url.pathname === '/auth');
      expect(authorization, visited.map(String).join('\n')).toBeDefined();
      expect(authorization!.searchParams.get('redirect_uri')).toBe(`${ui.address.origin}/oauth/callback`);
      expect(authorization!.searchParams.get('resource')).toBe(stack.mcpUrl);
      expect(ui.address.hostname).toBe('127.0.0.1');
      expect(visited.some((url) => url.origin === ui.address.origin && url.pathname === '/oauth/callback' && url.searchParams.has('code'))).toBe(true);

      await page.getByText('Tools', { exact: true }).first().click();
      await expect.poll(() => page.locator('body').innerText(), { timeout: UI_MS }).toContain('whoami');
      expect(await page.locator('body').innerText()).not.toContain('admin_only');
    } finally {
      await page.close();
    }
  }, INSTALL_MS);
});

describe('the MCP Inspector web UI signs in through the built-in authorization server, a person clicking through its consent page', () => {
  let stack: AuthzStack;
  let ui: { address: URL; web: RunningClient; stop(): void };
  beforeAll(async () => {
    stack = await startAuthzStack();
    ui = await startInspectorWeb(stack.mcpUrl);
  }, INSTALL_MS);
  afterAll(async () => {
    ui?.stop();
    await stack?.close();
  });

  test('connecting shows the consent page naming the Inspector and its callback host; Allow leads through the provider back to the Inspector, which lists the tools', async () => {
    const { page, visited } = await openPage(ui.address);
    try {
      await connectSwitch(page).click({ force: true });
      const allow = page.getByRole('button', { name: 'Allow' });
      await allow.waitFor({ timeout: UI_MS });
      const consent = await page.locator('body').innerText();
      expect(consent).toContain('registered itself with this server as');
      expect(consent).toContain(`an app on this computer (${ui.address.host})`);
      expect(consent).toContain('agents:chat');
      await allow.click();
      await page.getByText('Connected', { exact: true }).waitFor({ timeout: UI_MS });

      expect(visited.some((url) => url.origin === stack.origin && url.pathname === '/oauth/authorize')).toBe(true);
      expect(visited.some((url) => url.origin === stack.provider.issuer)).toBe(true);
      expect(visited.some((url) => url.origin === ui.address.origin && url.pathname === '/oauth/callback' && url.searchParams.get('iss') === stack.origin)).toBe(true);
      await page.getByText('Tools', { exact: true }).first().click();
      await expect.poll(() => page.locator('body').innerText(), { timeout: UI_MS }).toContain('whoami');
    } finally {
      await page.close();
    }
  }, INSTALL_MS);

  test('another site framing the consent page gets nothing drawn: the browser refuses to frame it', async () => {
    const consentUrl = new URL(`${stack.origin}/oauth/authorize`);
    const registered = await (await fetch(`${stack.origin}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'] }) })).json();
    consentUrl.search = new URLSearchParams({ client_id: registered.client_id, redirect_uri: 'http://127.0.0.1:1/cb', response_type: 'code', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }).toString();
    // The attacker's page, on another origin (the Inspector's): an invisible frame over its own button.
    const page = await browser.newPage();
    try {
      await page.goto(ui.address.href);
      const served = page.waitForResponse((response) => response.url().startsWith(`${stack.origin}/oauth/authorize`));
      await page.setContent(`<iframe id="f" src="${consentUrl.href}" style="opacity:0.01"></iframe>`);
      expect((await served).status()).toBe(200);
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      await expect.poll(async () => frame.url()).not.toBe('about:blank');
      expect(await frame.locator('button').count()).toBe(0);
    } finally {
      await page.close();
    }
  }, INSTALL_MS);
});

describe('the MCP Inspector web UI against a preview behind Vercel Deployment Protection', () => {
  const secret = 'bypass-secret-for-tests';
  let stack: ProtectedStack;
  let ui: { address: URL; web: RunningClient; stop(): void };
  beforeAll(async () => {
    stack = await startProtectedStack({ bypassSecret: secret });
    ui = await startInspectorWeb(stack.mcpUrl, ['--header', `${BYPASS_HEADER}: ${secret}`]);
  }, INSTALL_MS);
  afterAll(async () => {
    ui?.stop();
    await stack?.close();
  });

  test('its custom header reaches the MCP request but not OAuth discovery: the gate refuses the metadata and no sign-in starts', async () => {
    const { page, visited } = await openPage(ui.address);
    try {
      // click, not check: the failed connection turns the switch back off, which check() would report.
      await connectSwitch(page).click({ force: true });
      await expect.poll(() => stack.refused.some(isMetadataRequest), { timeout: UI_MS }).toBe(true);
      expect(stack.refused).not.toContain('POST /mcp');
      expect(visited.some((url) => url.origin === stack.issuer)).toBe(false);
    } finally {
      await page.close();
    }
  }, INSTALL_MS);
});
