/**
 * AUTH_ENTERPRISE_IDPS, the identity providers whose ID-JAGs the built-in server redeems: read with the other sign-in
 * modes at start-up, every misuse a TypeError naming the variable and the entry, in the MCP function (the modes table)
 * and in the authorization server's own function alike; on, it shows in the start-up line, the health probe and
 * mcp.json as a flag beside the built-in server.
 */

import { createServer } from 'node:http';
import { describe, expect, test } from 'vitest';
import { readAuthServerConfig } from '../../../lib/auth/authorization-server/config.js';
import { createAuthorizationServerHandler } from '../../../lib/auth/authorization-server/handler.js';
import { describeAuth } from '../../../lib/auth/index.js';
import { discoveryOf, healthOf, readSignIn } from '../../../lib/auth/modes/index.js';
import { freePort } from '../../support/client-harness.js';
import { startOAuthServer } from '../../support/oauth-server.js';
import { newSigningKey } from '../../support/signing-key.js';

const OKTA = 'https://acme.okta.com';
const BASE = {
  AUTH_SERVER_KEY: newSigningKey(), AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: OKTA, AUTH_SERVER_CLIENT_ID: 'agent-mcp',
  AUTH_SERVER_CLIENT_SECRET: 'secret', AUTH_SERVER_ALLOW: '*@acme.com', AUTH_SCOPES: 'agents:chat', AUTH_SERVER_SCOPES: 'agents:chat admin', PORT: '3000',
};
const DIGEST = 'a'.repeat(64);
const idps = (...entries: unknown[]) => ({ ...BASE, AUTH_ENTERPRISE_IDPS: JSON.stringify(entries) });
const read = (env: Record<string, string>) => readAuthServerConfig(env)!.enterprise!;

describe('AUTH_ENTERPRISE_IDPS', () => {
  test('an entry: its issuer, JWKS, clients (public, or confidential by the SHA-256 of their secret) and scopes; subjects as the OpenID sign-in names them when it is that provider', () => {
    const [okta] = read(idps({ issuer: OKTA, jwksUrl: `${OKTA}/oauth2/v1/keys`, clients: ['https://claude.ai/oauth/client.json', { id: '0oa1', sha256: DIGEST }], scopes: ['admin'] }));
    expect(okta).toEqual({
      issuer: OKTA, jwksUrl: `${OKTA}/oauth2/v1/keys`, clients: new Map([['https://claude.ai/oauth/client.json', undefined], ['0oa1', DIGEST]]), scopes: ['admin'], subjects: 'oidc',
    });
  });

  test('another provider\'s subjects are kept apart, under its issuer; its scopes default to AUTH_SCOPES', () => {
    const [entra] = read(idps({ issuer: 'https://login.microsoftonline.com/tenant/v2.0', clients: ['c'] }));
    expect(entra).toMatchObject({ subjects: 'issuer', scopes: ['agents:chat'] });
    expect(entra!.jwksUrl).toBeUndefined();
  });

  test('unset, it is off', () => {
    expect(readAuthServerConfig(BASE)!.enterprise).toBeUndefined();
    expect(readSignIn(BASE).map((mode) => mode.kind)).toEqual(['authorization-server']);
  });

  test.each<[string, Record<string, string>, string]>([
    ['without AUTH_SERVER_KEY', { AUTH_ENTERPRISE_IDPS: JSON.stringify([{ issuer: OKTA, clients: ['c'] }]) }, 'AUTH_ENTERPRISE_IDPS is set but AUTH_SERVER_KEY is not'],
    ['not JSON', { ...BASE, AUTH_ENTERPRISE_IDPS: 'issuer=https://acme.okta.com' }, 'AUTH_ENTERPRISE_IDPS must be a JSON array'],
    ['an empty array', idps(), 'AUTH_ENTERPRISE_IDPS must be a JSON array of 1 to 20'],
    ['an http issuer', idps({ issuer: 'http://acme.okta.com', clients: ['c'] }), 'AUTH_ENTERPRISE_IDPS entry 1 issuer must be an absolute https URL'],
    ['an http JWKS', idps({ issuer: OKTA, jwksUrl: 'http://acme.okta.com/keys', clients: ['c'] }), 'AUTH_ENTERPRISE_IDPS entry 1 jwksUrl must be an absolute https URL'],
    ['an issuer twice', idps({ issuer: OKTA, clients: ['c'] }, { issuer: OKTA, clients: ['d'] }), 'AUTH_ENTERPRISE_IDPS entry 2 names the issuer'],
    ['no clients', idps({ issuer: OKTA }), 'AUTH_ENTERPRISE_IDPS entry 1 clients must list'],
    ['a secret in clear', idps({ issuer: OKTA, clients: [{ id: 'c', sha256: 'hunter2' }] }), 'sha256 must be the 64 lowercase hex digits'],
    ['a scope the server does not grant', idps({ issuer: OKTA, clients: ['c'], scopes: ['deploy:write'] }), 'AUTH_ENTERPRISE_IDPS entry 1 lists scopes the built-in server does not grant (AUTH_SERVER_SCOPES): deploy:write'],
    ['a misspelt field', idps({ issuer: OKTA, client: ['c'] }), 'AUTH_ENTERPRISE_IDPS entry 1 has "client"'],
    ['oidc subjects of another provider', idps({ issuer: 'https://other.example', clients: ['c'], subjects: 'oidc' }), 'its issuer is not AUTH_SERVER_OIDC_ISSUER'],
  ])('%s is refused, naming the variable, by the modes table and the authorization server alike', (_, env, message) => {
    expect(() => readSignIn(env)).toThrow(TypeError);
    expect(() => readSignIn(env)).toThrow(message);
    expect(() => createAuthorizationServerHandler(env)).toThrow(message);
  });

  test('on, it is a row of the sign-in modes: the start-up line names the providers; health and mcp.json carry the flag', () => {
    const modes = readSignIn(idps({ issuer: OKTA, clients: ['c'] }));
    expect(modes.map((mode) => mode.kind)).toEqual(['authorization-server', 'authorization-server']);
    expect(describeAuth({ modes })).toContain(`or OAuth bearer tokens the built-in authorization server issues for ID-JAGs of ${OKTA} (enterprise sign-in, AUTH_ENTERPRISE_IDPS)`);
    expect(healthOf(modes)).toEqual({ mode: 'built-in', flags: ['enterprise'] });
    expect(discoveryOf(modes, 'http://localhost:3000')).toMatchObject({ type: 'oauth-protected-resource', enterprise: true, authorizationServers: ['http://localhost:3000'] });
  });
});

describe('npm start checks a provider named without jwksUrl before it listens', () => {
  test('metadata that names its issuer exactly passes; one that names another stops the start-up, naming the entry\'s issuer', async () => {
    const idp = await startOAuthServer({ scopes: [] });
    try {
      const env = (issuer: string) => ({ ...BASE, AUTH_SERVER_OIDC_ISSUER: idp.issuer, AUTH_ENTERPRISE_IDPS: JSON.stringify([{ issuer, clients: ['c'] }]) });
      const check = (issuer: string) => readSignIn(env(issuer)).find((mode) => mode.besides === 'enterprise')!.checkBeforeListening!(AbortSignal.timeout(5000));
      expect(await check(idp.issuer)).toBeUndefined();
      expect(await check(`${idp.issuer}/`)).toEqual({
        misconfigured: expect.stringContaining(`the issuer of the AUTH_ENTERPRISE_IDPS entry is "${idp.issuer}/", but the authorization server's metadata`),
      });
    } finally {
      await idp.close();
    }
  });

  test('metadata over 256 KiB is not read: the provider is said to be unavailable', async () => {
    const port = await freePort();
    const issuer = `http://localhost:${port}`;
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys`, padding: 'x'.repeat(300 * 1024) })));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const [, enterprise] = readSignIn({ ...BASE, AUTH_ENTERPRISE_IDPS: JSON.stringify([{ issuer, clients: ['c'] }]) });
      expect(await enterprise!.checkBeforeListening!(AbortSignal.timeout(5000))).toEqual({ unavailable: expect.stringContaining('more than 262144 bytes') });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
