/**
 * The built-in authorization server's bounds (docs/security.md "Bounds"): a Client ID Metadata Document on a
 * private, loopback or link-local address is refused when deployed, and one that is oversized, slow, redirected
 * or not about itself is refused anywhere; a flood of registrations and authorization requests stores nothing, so
 * it cannot starve the codes and refresh tokens of the people who sign in; registrations and requests are bounded.
 */

import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createAuthorizationServerHandler } from '../../../lib/auth/authorization-server/handler.js';
import { authorizationUrl, codeFor, pkce, register, tokenRequest } from '../../support/authz-client.js';
import { newSigningKey, startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';

const DEPLOYED = {
  AUTH_SERVER_KEY: newSigningKey(), AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: 'https://accounts.example.com',
  AUTH_SERVER_CLIENT_ID: 'id', AUTH_SERVER_CLIENT_SECRET: 'secret', AUTH_SERVER_ALLOW: 'alice@example.com', AUTH_SCOPES: 'agents:chat',
  PUBLIC_URL: 'https://agent.example.com',
};

describe('client metadata documents, deployed', () => {
  const origin = DEPLOYED.PUBLIC_URL;
  const handler = createAuthorizationServerHandler(DEPLOYED);
  const authorizeWith = (clientId: string) => handler(new Request(authorizationUrl(origin, { client_id: clientId, redirect_uri: 'https://claude.ai/api/mcp/auth_callback', code_challenge: pkce().challenge })));

  test.each([
    ['a loopback IPv4 literal', 'https://127.0.0.1/client.json', 'a private address'],
    ['a loopback IPv6 literal', 'https://[::1]/client.json', 'a private address'],
    ['the link-local metadata address of cloud hosts', 'https://169.254.169.254/latest/client.json', 'a private address'],
    ['a private network', 'https://10.1.2.3/client.json', 'a private address'],
    ['an IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/client.json', 'a private address'],
    ['a name that resolves to loopback', 'https://localhost/client.json', 'a private address'],
    // Issue 42 item 6: IPv6 forms that carry or reach an IPv4 address, and site-local.
    ['an IPv4-compatible IPv6 loopback (::/96)', 'https://[::127.0.0.1]/client.json', 'a private address'],
    ['an IPv4-translated IPv6 loopback (::ffff:0:0:0/96)', 'https://[::ffff:0:7f00:1]/client.json', 'a private address'],
    ['a local-use NAT64 address (64:ff9b:1::/48)', 'https://[64:ff9b:1::a9fe:a9fe]/client.json', 'a private address'],
    ['a 6to4 address of a loopback (2002::/16)', 'https://[2002:7f00:1::1]/client.json', 'a private address'],
    ['a site-local IPv6 address (fec0::/10)', 'https://[fec0::1]/client.json', 'a private address'],
  ])('a document at %s is refused, nothing fetched', async (_, clientId, reason) => {
    const response = await authorizeWith(clientId);
    expect([response.status, response.headers.get('location')]).toEqual([400, null]);
    expect(await response.text()).toContain(`The client&#39;s metadata document could not be used: ${reason}.`);
  });

  test('the operator gets a log line naming the refused document and why', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const fresh = createAuthorizationServerHandler(DEPLOYED);
      await fresh(new Request(authorizationUrl(origin, { client_id: 'https://169.254.169.254/meta', redirect_uri: 'https://claude.ai/api/mcp/auth_callback', code_challenge: pkce().challenge })));
      expect(warn).toHaveBeenCalledWith('[agent-mcp] authorization server: refused 1 request(s) at a bound (last: client "https://169.254.169.254/meta": The client\'s metadata document could not be used: a private address.)');
    } finally {
      warn.mockRestore();
    }
  });

  test('a document URL over plain http is not a client id when deployed', async () => {
    const response = await authorizeWith('http://docs.example.com/client.json');
    expect(await response.text()).toContain('The client id is not a valid metadata document URL');
  });
});

describe('client metadata documents that misbehave', () => {
  let stack: AuthzStack;
  let documents: Server;
  let at: string;
  beforeAll(async () => {
    stack = await startAuthzStack();
    documents = createServer((req, res) => {
      const id = `${at}${req.url}`;
      const doc = (extra = {}) => JSON.stringify({ client_id: id, client_name: 'x', redirect_uris: [REDIRECT], ...extra });
      if (req.url === '/big.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(doc({ padding: 'x'.repeat(20_000) }));
      if (req.url === '/big-chunked.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 40; i++) res.write('                                                  '.repeat(20));
        return res.end(doc());
      }
      if (req.url === '/slow.json') return res.writeHead(200, { 'content-type': 'application/json' }).write('{"client_id":');
      if (req.url === '/moved.json') return res.writeHead(302, { location: `${at}/fine.json` }).end();
      if (req.url === '/other-id.json') return res.writeHead(200).end(JSON.stringify({ client_id: `${at}/fine.json`, redirect_uris: [REDIRECT] }));
      if (req.url === '/page.json') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>');
      if (req.url === '/bad-uri.json') return res.writeHead(200).end(doc({ redirect_uris: ['javascript:alert(1)'] }));
      res.writeHead(200).end(doc());
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    at = `http://127.0.0.1:${(documents.address() as { port: number }).port}`;
  }, 30_000);
  afterAll(async () => {
    await stack?.close();
    documents?.closeAllConnections();
    await new Promise((resolve) => documents?.close(resolve));
  });

  const authorizeWith = async (path: string) => {
    const response = await fetch(authorizationUrl(stack.origin, { client_id: `${at}${path}`, redirect_uri: REDIRECT, code_challenge: pkce().challenge }), { redirect: 'manual' });
    return { status: response.status, location: response.headers.get('location'), text: await response.text() };
  };

  test.each([
    ['oversized', '/big.json', 'larger than 16384 bytes'],
    ['oversized without a length', '/big-chunked.json', 'larger than 16384 bytes'],
    ['redirected', '/moved.json', 'a redirect (HTTP 302), which is not followed'],
  ])('a document %s is refused', async (_, path, reason) => {
    expect(await authorizeWith(path)).toEqual({ status: 400, location: null, text: expect.stringContaining(reason) });
  });

  test('a document that does not finish within 5 s is refused', async () => {
    expect(await authorizeWith('/slow.json')).toEqual({ status: 400, location: null, text: expect.stringContaining('no complete answer within 5000 ms') });
  }, 15_000);

  test.each([
    ['names another client_id', '/other-id.json', 'does not name its own URL as client_id'],
    ['is not JSON', '/page.json', 'is not JSON'],
    ['lists a redirect URI that would run script', '/bad-uri.json', 'its redirect_uris[0] uses the javascript: scheme'],
  ])('a document that %s is refused', async (_, path, reason) => {
    expect(await authorizeWith(path)).toEqual({ status: 400, location: null, text: expect.stringContaining(reason) });
  });

  test('a well-formed document is accepted', async () => {
    expect((await authorizeWith('/fine.json')).status).toBe(200);
  });
});

describe('registrations and authorization requests', () => {
  let stack: AuthzStack;
  // Room for a few security records only: a registration or pending request kept there would fill it at once.
  beforeAll(async () => { stack = await startAuthzStack({ env: { MEMORY_STORE_MAX_BYTES_SECURITY: '8192' } }); }, 30_000);
  afterAll(() => stack?.close());

  test('a flood of 500 registrations and 200 authorization requests stores nothing: sign-in and refresh still work in 8 KB of security records', async () => {
    let clientId = '';
    for (let batch = 0; batch < 5; batch++) {
      const replies = await Promise.all(Array.from({ length: 100 }, (_, i) => register(stack.origin, { redirect_uris: [REDIRECT], client_name: `flood ${batch}-${i}` })));
      expect(replies.every((r) => r.status === 201)).toBe(true);
      clientId = replies[0]!.body.client_id as string;
    }
    for (let batch = 0; batch < 2; batch++) {
      const shown = await Promise.all(Array.from({ length: 100 }, () => fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge }))));
      expect(shown.every((r) => r.status === 200)).toBe(true);
    }
    const person = (await register(stack.origin, { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'] })).body.client_id as string;
    const { code, verifier } = await codeFor(stack.origin, person, REDIRECT);
    const tokens = await tokenRequest(stack.origin, { grant_type: 'authorization_code', code: code!, code_verifier: verifier, client_id: person, redirect_uri: REDIRECT });
    expect(tokens.status).toBe(200);
    expect((await tokenRequest(stack.origin, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string, client_id: person })).status).toBe(200);
  }, 120_000);

  test('a registration over 16 KiB is refused (413), as are more than 10 redirect URIs', async () => {
    const big = await register(stack.origin, { redirect_uris: [REDIRECT], client_name: 'x'.repeat(17_000) });
    expect([big.status, big.body.error]).toEqual([413, 'invalid_client_metadata']);
    const many = await register(stack.origin, { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1/${i}`) });
    expect(many).toEqual({ status: 400, body: { error: 'invalid_redirect_uri', error_description: 'The registration\'s redirect_uris may hold at most 10 URIs.' } });
  });

  test('RATE_LIMIT_IP counts the server\'s requests too, its two public documents aside', async () => {
    const limited = await startAuthzStack({ env: { RATE_LIMIT_IP: '3/1m' } });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await register(limited.origin, { redirect_uris: [REDIRECT] })).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
      expect((await fetch(`${limited.origin}/.well-known/oauth-authorization-server`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  }, 30_000);

  test('a state over 1024 characters gets a page, not a redirect', async () => {
    const clientId = (await register(stack.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
    const response = await fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, state: 's'.repeat(1025) }), { redirect: 'manual' });
    expect([response.status, response.headers.get('location')]).toEqual([400, null]);
  });
});
