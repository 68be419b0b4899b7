/**
 * The issuer's keys: found through its metadata (RFC 8414 §3, OpenID Discovery §4) unless AUTH_JWKS_URL,
 * cached, and refetched when a token names a kid we have not seen, at most once per 30 s cooldown.
 * The clock is frozen and moved, never waited on.
 */

import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { readAuthConfig } from '../../lib/auth/config.js';
import { metadataUrls } from '../../lib/auth/keys.js';
import { createVerifier } from '../../lib/auth/verify.js';
import { startIssuer, type IssuerOptions, type TestIssuer } from '../support/issuer.js';
import { startRedirector } from '../support/redirector.js';

const AUDIENCE = 'https://agent.example.com/mcp';
const issuers: TestIssuer[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(issuers.splice(0).map((i) => i.close()));
});

async function setUp(options: IssuerOptions = {}, env: Record<string, string> = {}) {
  const issuer = await startIssuer(options);
  issuers.push(issuer);
  const verify = createVerifier(readAuthConfig({ AUTH_ISSUER: issuer.issuer, ...env })!);
  const token = (kid?: string) => {
    const now = Math.floor(Date.now() / 1000);
    return issuer.mint({ iss: issuer.issuer, aud: AUDIENCE, sub: 'alice', iat: now, exp: now + 300 }, kid ? { kid } : {});
  };
  return { issuer, verify: async (t: string) => verify(t, [AUDIENCE], issuer.issuer), token };
}

describe('metadata discovery', () => {
  test.each([
    ['https://as.example.com', [
      'https://as.example.com/.well-known/oauth-authorization-server',
      'https://as.example.com/.well-known/openid-configuration',
    ]],
    ['https://as.example.com/tenant-a/', [
      'https://as.example.com/.well-known/oauth-authorization-server/tenant-a',
      'https://as.example.com/.well-known/openid-configuration/tenant-a',
      'https://as.example.com/tenant-a/.well-known/openid-configuration',
    ]],
  ])('for issuer %s the metadata URLs are tried in the MCP priority order', (issuer, urls) => {
    expect(metadataUrls(issuer)).toEqual(urls);
  });

  test.each<[string, IssuerOptions]>([
    ['RFC 8414 metadata at the root', { metadata: 'oauth' }],
    ['RFC 8414 metadata with the issuer path inserted', { metadata: 'oauth', path: '/tenant-a' }],
    ['OpenID metadata appended to the issuer path', { metadata: 'openid', path: '/realms/mcp' }],
  ])('the JWKS is found through %s', async (_name, options) => {
    const { issuer, verify, token } = await setUp(options);
    expect(await verify(await token())).toMatchObject({ ok: true, principal: { subject: 'alice' } });
    expect(issuer.served.metadata).toBe(1);
  });

  test('metadata that names another issuer is not trusted (RFC 8414 §3.3): a misconfiguration, and the log says what to fix', async () => {
    const { issuer, verify, token } = await setUp({ claimedIssuer: 'https://someone-else.example' });
    expect(await verify(await token())).toEqual({
      ok: false,
      misconfigured: `AUTH_ISSUER is "${issuer.issuer}", but the authorization server's metadata at ${issuer.issuer}/.well-known/oauth-authorization-server `
        + 'names its issuer "https://someone-else.example"; set AUTH_ISSUER to exactly that (the token\'s iss must match it too).',
    });
  });

  test('AUTH_ISSUER with a trailing slash the metadata does not have is the same misconfiguration, naming the issuer to set', async () => {
    const issuer = await startIssuer();
    issuers.push(issuer);
    const verify = createVerifier(readAuthConfig({ AUTH_ISSUER: `${issuer.issuer}/` })!);
    const now = Math.floor(Date.now() / 1000);
    const result = await verify(await issuer.mint({ iss: issuer.issuer, aud: AUDIENCE, sub: 'alice', iat: now, exp: now + 60 }), [AUDIENCE], `${issuer.issuer}/`);
    expect(result).toMatchObject({ ok: false, misconfigured: expect.stringContaining(`names its issuer "${issuer.issuer}"; set AUTH_ISSUER to exactly that`) });
    expect(issuer.served.jwks).toBe(0);
  });

  test('metadata that answers with a redirect is not followed: a misconfiguration naming what to set, and no key is fetched', async () => {
    // The issuer's address redirects to a document that names it as its issuer: followed, its keys would be trusted.
    let moved = '';
    const redirector = await startRedirector(() => moved);
    const target = await startIssuer({ claimedIssuer: redirector.url });
    issuers.push(target);
    onTestFinished(() => redirector.close());
    moved = `${target.issuer}/.well-known/oauth-authorization-server`;
    const verify = createVerifier(readAuthConfig({ AUTH_ISSUER: redirector.url })!);
    const now = Math.floor(Date.now() / 1000);
    const token = await target.mint({ iss: redirector.url, aud: AUDIENCE, sub: 'alice', iat: now, exp: now + 60 });
    expect(await verify(token, [AUDIENCE], redirector.url)).toEqual({
      ok: false,
      misconfigured: `the authorization server's metadata at ${redirector.url}/.well-known/oauth-authorization-server answers with a redirect, `
        + 'which agent-mcp does not follow for keys; set AUTH_ISSUER to the issuer whose metadata is served at its own address, or AUTH_JWKS_URL to its key set.',
    });
    expect(redirector.redirected.length).toBeGreaterThan(0);
    expect(target.served).toMatchObject({ metadata: 0, jwks: 0 });
  });

  test('an issuer that does not answer is unavailable, not misconfigured: the token may be fine', async () => {
    const { issuer, verify, token } = await setUp();
    issuer.setDown(true);
    expect(await verify(await token())).toMatchObject({ ok: false, unavailable: expect.stringContaining('no authorization server metadata') });
  });

  test('with AUTH_JWKS_URL no metadata is fetched', async () => {
    const issuer = await startIssuer({ metadata: 'none' });
    issuers.push(issuer);
    const verify = createVerifier(readAuthConfig({ AUTH_ISSUER: issuer.issuer, AUTH_JWKS_URL: issuer.jwksUrl })!);
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.mint({ iss: issuer.issuer, aud: AUDIENCE, sub: 'alice', iat: now, exp: now + 60 });
    expect(await verify(token, [AUDIENCE], issuer.issuer)).toMatchObject({ ok: true });
    expect(issuer.served).toMatchObject({ metadata: 0, jwks: 1 });
  });
});

describe('the key cache', () => {
  test('keys are fetched once for many tokens', async () => {
    const { issuer, verify, token } = await setUp();
    for (let i = 0; i < 5; i++) expect(await verify(await token())).toMatchObject({ ok: true });
    expect(issuer.served.jwks).toBe(1);
  });

  test('after a key rotation, a token with the new kid makes one refetch and is accepted', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { issuer, verify, token } = await setUp();
    expect(await verify(await token())).toMatchObject({ ok: true });
    vi.setSystemTime(Date.now() + 31_000);
    await issuer.rotate();
    expect(await verify(await token())).toMatchObject({ ok: true });
    expect(issuer.served.jwks).toBe(2);
  });

  test('unknown kids within the 30 s cooldown do not reach the issuer again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { issuer, verify, token } = await setUp();
    expect(await verify(await token())).toMatchObject({ ok: true });
    for (const kid of ['forged-1', 'forged-2', 'forged-3']) {
      expect(await verify(await token(kid))).toEqual({ ok: false, description: 'The token was signed with an unknown key.' });
    }
    expect(issuer.served.jwks).toBe(1);
    vi.setSystemTime(Date.now() + 31_000);
    await Promise.all(['forged-4', 'forged-5', 'forged-6'].map(async (kid) => verify(await token(kid))));
    expect(issuer.served.jwks).toBe(2);
  });
});
