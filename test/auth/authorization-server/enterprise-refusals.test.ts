/**
 * What the built-in server refuses of an enterprise ID-JAG (MCP Enterprise-Managed Authorization §5.1, §7.4, §7.6;
 * draft-ietf-oauth-identity-assertion-authz-grant §4.4.1; RFC 7521 §5.2), each with its RFC 6749 §5.2 error and a
 * fixed sentence: every assertion here is signed by the identity provider's own key and differs from one it would
 * issue by the one claim under test. Requests are what a client sends, over HTTP.
 */

import { createServer } from 'node:http';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { callWith } from '../../support/authz-client.js';
import { startAuthzStack } from '../../support/authz-stack.js';
import { freePort } from '../../support/client-harness.js';
import { CONFIDENTIAL, ENTRY_SCOPES, PUBLIC_CLIENT, startEnterpriseStack, type EnterpriseStack } from '../../support/enterprise-stack.js';
import { claimsOf } from '../../support/oauth-clients.js';
import { SCOPE } from '../../support/protected-app.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
let enterprise: EnterpriseStack;
let origin: string;

beforeAll(async () => {
  enterprise = await startEnterpriseStack();
  origin = enterprise.stack.origin;
}, 30_000);
afterAll(() => enterprise?.close());

/** An ID-JAG as the provider issues one for the confidential client, for this server; `claims` and `header` change it. */
const idJag = (claims: Record<string, unknown> = {}, header?: Record<string, unknown>) =>
  enterprise.idp.signIdJag({ sub: 'alice', aud: origin, client_id: CONFIDENTIAL.id, resource: `${origin}/mcp`, scope: SCOPE, ...claims }, header);

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** The JWT bearer grant with `assertion`, the confidential client authenticating by HTTP Basic unless `auth` says otherwise. */
async function redeem(assertion: string, form: Record<string, string> = {}, auth: string | null = basic(CONFIDENTIAL.id, CONFIDENTIAL.secret)) {
  const response = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion, ...form }),
  });
  return { status: response.status, body: await response.json() as Record<string, string> };
}

const refusal = (status: number, error: string, description: RegExp | string) =>
  ({ status, body: { error, error_description: typeof description === 'string' ? description : expect.stringMatching(description) } });

describe('an ID-JAG the provider would issue is redeemed', () => {
  test('by the confidential client with its secret, by HTTP Basic or in the body, for the MCP URL and the scopes it carries', async () => {
    const viaBasic = await redeem(await idJag());
    expect(viaBasic).toMatchObject({ status: 200, body: { token_type: 'Bearer', scope: SCOPE } });
    expect(viaBasic.body.refresh_token).toBeUndefined();
    expect(claimsOf(viaBasic.body.access_token!)).toMatchObject({ iss: origin, aud: `${origin}/mcp`, sub: 'oidc:alice', client_id: CONFIDENTIAL.id, scope: SCOPE });
    expect((await callWith(enterprise.stack.mcpUrl, viaBasic.body.access_token!)).body.result.content[0].text).toContain('"subject":"oidc:alice"');

    const viaPost = await redeem(await idJag(), { client_id: CONFIDENTIAL.id, client_secret: CONFIDENTIAL.secret }, null);
    expect(viaPost.status).toBe(200);
  });

  test('by a public client the entry lists, which sends its client_id alone', async () => {
    expect((await redeem(await idJag({ client_id: PUBLIC_CLIENT }), { client_id: PUBLIC_CLIENT }, null)).status).toBe(200);
  });

  test('the token gets the scopes asked for among those the assertion carries; without a scope claim, those of the entry', async () => {
    const narrowed = await redeem(await idJag({ scope: `${SCOPE} admin` }), { scope: 'admin' });
    expect(narrowed).toMatchObject({ status: 200, body: { scope: 'admin' } });
    const unscoped = await redeem(await idJag({ scope: undefined }));
    expect(unscoped.body.scope!.split(' ').sort()).toEqual([...ENTRY_SCOPES].sort());
  });

  test('without a resource claim the token is for the MCP URL the request names, or /mcp', async () => {
    const named = await redeem(await idJag({ resource: undefined }), { resource: `${origin}/api/mcp` });
    expect(claimsOf(named.body.access_token!).aud).toBe(`${origin}/api/mcp`);
    const unnamed = await redeem(await idJag({ resource: undefined }));
    expect(claimsOf(unnamed.body.access_token!).aud).toBe(`${origin}/mcp`);
  });
});

describe('each claim is checked', () => {
  test.each<[string, Record<string, unknown>, Record<string, unknown> | undefined, RegExp]>([
    ['a typ other than oauth-id-jag+jwt', {}, { typ: 'JWT' }, /not an ID-JAG/],
    ['no typ', {}, { typ: undefined }, /not an ID-JAG/],
    ['an aud that is another authorization server', { aud: 'https://other-as.example' }, undefined, /not issued for this authorization server/],
    ['an aud with a trailing slash (issuers compare exactly)', { aud: 'ORIGIN/' }, undefined, /not issued for this authorization server/],
    ['an exp in the past', { exp: Math.floor(Date.now() / 1000) - 120 }, undefined, /expired/],
    ['an iat in the future', { iat: Math.floor(Date.now() / 1000) + 300, exp: Math.floor(Date.now() / 1000) + 600 }, undefined, /issued in the future/],
    ['an nbf in the future', { nbf: Math.floor(Date.now() / 1000) + 300 }, undefined, /not valid yet/],
    ['a lifetime over an hour', { exp: Math.floor(Date.now() / 1000) + 7200 }, undefined, /longer than 3600 seconds/],
    ['no sub', { sub: undefined }, undefined, /no sub claim/],
    ['no jti', { jti: undefined }, undefined, /no jti claim/],
    ['no client_id', { client_id: undefined }, undefined, /no client_id claim/],
    ['a resource that is another MCP server', { resource: 'https://other-mcp.example/mcp' }, undefined, /another resource/],
    ['a client_id that is another client', { client_id: PUBLIC_CLIENT }, undefined, /issued to another client/],
    ['a scope the entry does not list', { scope: `${SCOPE} deploy:write` }, undefined, /scope this server does not grant/],
  ])('%s: invalid_grant', async (_, claims, header, description) => {
    const fixed = Object.fromEntries(Object.entries(claims).map(([k, v]) => [k, v === 'ORIGIN/' ? `${origin}/` : v]));
    expect(await redeem(await idJag(fixed, header))).toEqual(refusal(400, 'invalid_grant', description));
  });

  test('an issuer the operator did not name, and a key the provider does not publish: invalid_grant', async () => {
    const { privateKey } = await jose.generateKeyPair('RS256');
    const forged = (iss: string, kid: string) => new jose.SignJWT({ sub: 'alice', aud: origin, client_id: CONFIDENTIAL.id, jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'oauth-id-jag+jwt' }).setIssuer(iss).setIssuedAt().setExpirationTime('5m').sign(privateKey);
    expect(await redeem(await forged('https://idp.attacker.example', 'x'))).toEqual(refusal(400, 'invalid_grant', /not from an identity provider this server trusts/));
    expect(await redeem(await forged(enterprise.idp.issuer, 'as-1'))).toEqual(refusal(400, 'invalid_grant', /signature is invalid/));
    expect(await redeem(await forged(enterprise.idp.issuer, 'unknown-kid'))).toEqual(refusal(400, 'invalid_grant', /key its identity provider does not publish/));
  });

  test('an unsigned assertion (alg none) and a symmetric one: invalid_grant', async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { iss: enterprise.idp.issuer, sub: 'alice', aud: origin, client_id: CONFIDENTIAL.id, jti: crypto.randomUUID(), iat: now, exp: now + 300 };
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'oauth-id-jag+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
    expect(await redeem(unsigned)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const symmetric = await new jose.SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'oauth-id-jag+jwt' }).sign(new TextEncoder().encode('s'.repeat(32)));
    expect(await redeem(symmetric)).toEqual(refusal(400, 'invalid_grant', /signing algorithm this server does not accept/));
  });

  test('a request scope the assertion does not carry: invalid_scope; a resource other than ours or the assertion\'s: invalid_target', async () => {
    expect(await redeem(await idJag(), { scope: 'admin' })).toEqual(refusal(400, 'invalid_scope', /None of the scopes asked for/));
    expect(await redeem(await idJag(), { resource: 'https://other-mcp.example/mcp' })).toEqual(refusal(400, 'invalid_target', /only for its MCP endpoint/));
    expect(await redeem(await idJag(), { resource: `${origin}/api/mcp` })).toEqual(refusal(400, 'invalid_target', /as the assertion names it/));
  });
});

describe('the client is authenticated as registered, before the assertion is spent', () => {
  test('a wrong or missing secret of the confidential client: 401 invalid_client; the assertion stays good for the client itself', async () => {
    const assertion = await idJag();
    const wrong = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(CONFIDENTIAL.id, 'not-the-secret') },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(await wrong.json()).toEqual({ error: 'invalid_client', error_description: 'The client could not be authenticated.' });
    expect(await redeem(assertion, { client_id: CONFIDENTIAL.id }, null)).toEqual(refusal(401, 'invalid_client', 'The client could not be authenticated.'));
    expect((await redeem(assertion)).status).toBe(200);
  });

  test('a secret sent for a public client, both Basic and a body secret, or a client assertion: refused', async () => {
    expect(await redeem(await idJag({ client_id: PUBLIC_CLIENT }), { client_id: PUBLIC_CLIENT, client_secret: 'x' }, null)).toEqual(refusal(401, 'invalid_client', 'The client could not be authenticated.'));
    expect(await redeem(await idJag(), { client_secret: CONFIDENTIAL.secret })).toEqual(refusal(400, 'invalid_request', /one way/));
    expect(await redeem(await idJag(), { client_id: CONFIDENTIAL.id, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: 'x.y.z' }, null))
      .toEqual(refusal(401, 'invalid_client', /does not take client assertions/));
  });

  test('a client the entry does not list: unauthorized_client', async () => {
    const other = 'https://unlisted.example/client.json';
    expect(await redeem(await idJag({ client_id: other }), { client_id: other }, null)).toEqual(refusal(400, 'unauthorized_client', /may not redeem this identity provider's grants/));
  });
});

describe('single use', () => {
  test('an assertion is redeemed once; presented again it is invalid_grant', async () => {
    const assertion = await idJag();
    expect((await redeem(assertion)).status).toBe(200);
    expect(await redeem(assertion)).toEqual(refusal(400, 'invalid_grant', 'The assertion was already used.'));
  });
});

describe('without AUTH_ENTERPRISE_IDPS', () => {
  test('the JWT bearer grant is unsupported_grant_type, and the metadata does not name it', async () => {
    const plain = await startAuthzStack();
    try {
      const response = await fetch(`${plain.origin}/oauth/token`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: 'x.y.z', client_id: 'c' }),
      });
      expect(response.status).toBe(400);
      expect((await response.json() as Record<string, string>).error).toBe('unsupported_grant_type');
      const metadata = await (await fetch(`${plain.origin}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>;
      expect(metadata.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
      expect(metadata.authorization_grant_profiles_supported).toBeUndefined();
      expect(metadata.token_endpoint_auth_methods_supported).toEqual(['none']);
    } finally {
      await plain.close();
    }
  }, 30_000);
});

describe('the provider\'s key set is read within its bound', () => {
  test('a key set over 256 KiB is not read: 503 temporarily_unavailable; the same keys within it verify', async () => {
    const published = await (await fetch(`${enterprise.idp.issuer}/jwks`)).text();
    let padding = 300 * 1024;
    const keysPort = await freePort();
    const keys = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`${published.slice(0, -1)},"padding":"${'x'.repeat(padding)}"}`));
    await new Promise<void>((resolve) => keys.listen(keysPort, '127.0.0.1', resolve));
    const stack = await startAuthzStack({
      provider: enterprise.idp,
      env: { AUTH_ENTERPRISE_IDPS: JSON.stringify([{ issuer: enterprise.idp.issuer, jwksUrl: `http://localhost:${keysPort}/keys`, clients: [PUBLIC_CLIENT] }]) },
    });
    try {
      const redeemThere = async () => {
        const assertion = await enterprise.idp.signIdJag({ sub: 'alice', aud: stack.origin, client_id: PUBLIC_CLIENT, scope: SCOPE });
        const response = await fetch(`${stack.origin}/oauth/token`, {
          method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: JWT_BEARER, assertion, client_id: PUBLIC_CLIENT }),
        });
        return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() as Record<string, string> };
      };
      expect(await redeemThere()).toEqual({ status: 503, retryAfter: '5', body: { error: 'temporarily_unavailable', error_description: expect.stringMatching(/keys cannot be fetched/) } });
      padding = 1024;
      expect((await redeemThere()).status).toBe(200);
    } finally {
      await stack.close();
      await new Promise((resolve) => keys.close(resolve));
    }
  }, 30_000);
});
