/**
 * The auth step over HTTP against a real issuer on loopback (MCP authorization §Access Token Usage and §Token
 * Handling, RFC 6750 §3, RFC 9728 §5.1): who gets in, and what every refused request is told.
 */

import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { challengeOf, SCOPE, startProtectedServer } from '../support/protected-app.js';
import { post, postModern } from '../support/rpc.js';
import type { TestServer } from '../support/server.js';

let issuer: TestIssuer;
let server: TestServer;

beforeAll(async () => {
  issuer = await startIssuer();
  server = await startProtectedServer({ AUTH_ISSUER: issuer.issuer });
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

const now = () => Math.floor(Date.now() / 1000);
const good = (extra: jose.JWTPayload = {}): jose.JWTPayload =>
  ({ iss: issuer.issuer, aud: server.mcpUrl, sub: 'alice', scope: SCOPE, client_id: 'cli', iat: now(), exp: now() + 300, ...extra });
const WHOAMI = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
const call = (token?: string, body: unknown = WHOAMI, url = server.mcpUrl) =>
  post(url, body, { 'mcp-protocol-version': '2025-11-25', ...(token ? { authorization: `Bearer ${token}` } : {}) });

describe('a valid token', () => {
  test('is accepted, and its principal (subject, client, scopes) reaches the tool', async () => {
    const response = await call(await issuer.mint(good()));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(JSON.parse(body.result.content[0].text)).toEqual({ kind: 'issuer', subject: 'alice', clientId: 'cli', scopes: [SCOPE] });
  });

  test('scopes may come as an scp array, and the client as azp', async () => {
    const response = await call(await issuer.mint(good({ scope: undefined, client_id: undefined, scp: [SCOPE], azp: 'web' })));
    expect(JSON.parse((await response.json()).result.content[0].text)).toEqual({ kind: 'issuer', subject: 'alice', clientId: 'web', scopes: [SCOPE] });
  });

  test('a token that expired within the 30 s clock skew is still accepted', async () => {
    expect((await call(await issuer.mint(good({ exp: now() - 10 })))).status).toBe(200);
  });

  test('the modern wire takes the same token', async () => {
    const response = await postModern(server.mcpUrl, 1, 'tools/call', { name: 'whoami', arguments: {} }, {
      headers: { authorization: `Bearer ${await issuer.mint(good())}` },
    });
    expect(response.status).toBe(200);
  });
});

describe('AUTH_AUDIENCE, for an authorization server that issues one fixed audience', () => {
  test('tokens must carry that audience, and tokens for the MCP URL are refused', async () => {
    const pinned = await startProtectedServer({ AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: 'https://api.example.com' });
    try {
      const as = async (aud: string) => (await call(await issuer.mint(good({ aud })), WHOAMI, pinned.mcpUrl)).status;
      expect(await as('https://api.example.com')).toBe(200);
      expect(await as(pinned.mcpUrl)).toBe(401);
    } finally {
      await pinned.close();
    }
  });
});

describe('no token', () => {
  test('gets 401 with a challenge naming the absolute metadata URL and the scopes, and no error', async () => {
    const response = await call();
    expect(response.status).toBe(401);
    expect(challengeOf(response)).toEqual({
      scheme: 'Bearer',
      resource_metadata: `${server.url}/mcp/oauth-protected-resource`,
      scope: SCOPE,
    });
  });

  test('at /api/mcp the challenge names that path\'s metadata', async () => {
    const response = await call(undefined, WHOAMI, `${server.url}/api/mcp`);
    expect(challengeOf(response).resource_metadata).toBe(`${server.url}/api/mcp/oauth-protected-resource`);
  });

  test('every method needs a token, ping and initialize included', async () => {
    expect((await call(undefined, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(401);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    expect((await call(undefined, initialize)).status).toBe(401);
  });

  test('the preflight never needs a token', async () => {
    const response = await fetch(server.mcpUrl, { method: 'OPTIONS', headers: { origin: 'http://localhost:1', 'access-control-request-method': 'POST' } });
    expect(response.status).toBe(204);
  });

  test('a browser client can read the challenge: WWW-Authenticate is CORS-exposed', async () => {
    const response = await post(server.mcpUrl, WHOAMI, { origin: 'http://localhost:6274' });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-expose-headers')).toMatch(/www-authenticate/i);
  });

  test('a non-Bearer scheme gets the plain challenge', async () => {
    const response = await post(server.mcpUrl, WHOAMI, { authorization: 'Basic YWxpY2U6c2VjcmV0' });
    expect(response.status).toBe(401);
    expect(challengeOf(response)).not.toHaveProperty('error');
  });
});

/** The attack battery: each row is a misuse, the status it gets, and the challenge's error and description. */
interface Attack {
  name: string;
  attack: () => Promise<{ token?: string; url?: string; body?: unknown }>;
  status: number;
  error: string;
  description: RegExp;
}

const row = (name: string, attack: Attack['attack'], status: number, error: string, description: RegExp): Attack =>
  ({ name, attack, status, error, description });

const BATTERY: Attack[] = [
  row('alg none (an unsigned token)', async () => ({ token: new jose.UnsecuredJWT(good()).encode() }),
    401, 'invalid_token', /signing algorithm/),
  row('HS256 signed with the issuer\'s public key as the secret', async () => {
    const pem = await jose.exportSPKI((await jose.importJWK(issuer.publicJwk, 'RS256')) as jose.CryptoKey);
    return { token: await new jose.SignJWT(good()).setProtectedHeader({ alg: 'HS256', kid: issuer.publicJwk.kid }).sign(new TextEncoder().encode(pem)) };
  }, 401, 'invalid_token', /signing algorithm/),
  row('a wrong audience (a token for another resource)', async () => ({ token: await issuer.mint(good({ aud: 'https://elsewhere.example/mcp' })) }),
    401, 'invalid_token', /not issued for this resource/),
  row('a wrong issuer', async () => ({ token: await issuer.mint(good({ iss: 'https://evil.example' })) }),
    401, 'invalid_token', /not issued by this resource's authorization server/),
  row('an expired token (beyond the clock skew)', async () => ({ token: await issuer.mint(good({ iat: now() - 7200, exp: now() - 60 })) }),
    401, 'invalid_token', /expired/),
  row('a token not yet valid (nbf in the future)', async () => ({ token: await issuer.mint(good({ nbf: now() + 3600 })) }),
    401, 'invalid_token', /not valid yet/),
  row('an unknown kid', async () => ({ token: await issuer.mint(good(), { key: issuer.strangerKey, kid: 'k-unknown' }) }),
    401, 'invalid_token', /unknown key/),
  row('a bad signature (claims changed after signing)', async () => {
    const [header, , signature] = (await issuer.mint(good())).split('.');
    return { token: `${header}.${Buffer.from(JSON.stringify(good({ sub: 'root' }))).toString('base64url')}.${signature}` };
  }, 401, 'invalid_token', /signature is invalid/),
  row('a stranger\'s key under the published kid', async () => ({ token: await issuer.mint(good(), { key: issuer.strangerKey }) }),
    401, 'invalid_token', /signature is invalid/),
  row('no subject', async () => ({ token: await issuer.mint(good({ sub: undefined })) }),
    401, 'invalid_token', /no sub claim/),
  row('a missing scope (a tool that needs admin)', async () => ({
    token: await issuer.mint(good()),
    body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'admin_only', arguments: {} } },
  }), 403, 'insufficient_scope', /needs admin|scope\(s\): admin/),
  row('the token in the query string (even a valid one)', async () => ({ url: `${server.mcpUrl}?access_token=${await issuer.mint(good())}` }),
    400, 'invalid_request', /never in the URL/),
  row('a malformed Authorization: Bearer header', async () => ({ token: 'two tokens' }),
    401, 'invalid_token', /one bearer token/),
];

describe('the attack battery: each forged or misused token is refused with the right status and challenge', () => {
  test.each(BATTERY)('$name → $status $error', async ({ attack, status, error, description }) => {
    const { token, url, body } = await attack();
    const response = await call(token, body ?? WHOAMI, url ?? server.mcpUrl);
    expect(response.status).toBe(status);
    expect(challengeOf(response)).toMatchObject({
      scheme: 'Bearer',
      error,
      error_description: expect.stringMatching(description),
      resource_metadata: `${server.url}/mcp/oauth-protected-resource`,
    });
    expect((await response.json()).error.message).toMatch(description);
  });
});

describe('an AUTH_ISSUER its metadata does not name (a trailing slash, another host)', () => {
  test('is 500 "server misconfigured", never a 503 to retry; the log names AUTH_ISSUER and the issuer to set', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const misnamed = await startProtectedServer({ AUTH_ISSUER: `${issuer.issuer}/` });
    try {
      const response = await call(await issuer.mint({ ...good(), aud: misnamed.mcpUrl }), WHOAMI, misnamed.mcpUrl);
      expect(response.status).toBe(500);
      expect(response.headers.has('retry-after')).toBe(false);
      expect(response.headers.has('www-authenticate')).toBe(false);
      expect((await response.json()).error).toEqual({ code: -32603, message: 'server misconfigured: see the function log' });
      const logged = error.mock.calls.map((c) => String(c[0])).filter((line) => line.includes('AUTH_ISSUER'));
      expect(logged).toEqual([`[agent-mcp] auth: AUTH_ISSUER is "${issuer.issuer}/", but the authorization server's metadata at `
        + `${issuer.issuer}/.well-known/oauth-authorization-server names its issuer "${issuer.issuer}"; set AUTH_ISSUER to exactly that `
        + '(the token\'s iss must match it too).']);
    } finally {
      error.mockRestore();
      await misnamed.close();
    }
  });
});

describe('an unreachable issuer', () => {
  test('gets 503 with Retry-After and no challenge, so clients keep their tokens; it recovers when the issuer does', async () => {
    const flaky = await startIssuer();
    const protectedServer = await startProtectedServer({ AUTH_ISSUER: flaky.issuer });
    try {
      flaky.setDown(true);
      const token = await flaky.mint({ ...good(), iss: flaky.issuer, aud: protectedServer.mcpUrl });
      const down = await call(token, WHOAMI, protectedServer.mcpUrl);
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toBe('5');
      expect(down.headers.has('www-authenticate')).toBe(false);
      const asked = flaky.served.requests;
      expect(asked).toBeGreaterThan(0);
      // For 5 s after a failure the issuer is not asked again, however many requests arrive.
      expect((await call(token, WHOAMI, protectedServer.mcpUrl)).status).toBe(503);
      expect(flaky.served.requests).toBe(asked);
      flaky.setDown(false);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 6_000);
      expect((await call(token, WHOAMI, protectedServer.mcpUrl)).status).toBe(200);
    } finally {
      vi.useRealTimers();
      await protectedServer.close();
      await flaky.close();
    }
  });
});
