/**
 * The built-in authorization server's configuration: off unless AUTH_SERVER_KEY is set, and every misuse stops
 * the start-up with a TypeError naming the variable, in the MCP function (which verifies its tokens) and in the
 * server's own function alike.
 */

import { describe, expect, test } from 'vitest';
import { readAuthConfig } from '../../../lib/auth/config.js';
import { readAuthServerConfig } from '../../../lib/auth/authorization-server/config.js';
import { createAuthorizationServerHandler } from '../../../lib/auth/authorization-server/handler.js';
import { newSigningKey } from '../../support/signing-key.js';

const KEY = newSigningKey();
const BASE = {
  AUTH_SERVER_KEY: KEY, AUTH_SERVER_PROVIDER: 'github', AUTH_SERVER_CLIENT_ID: 'Iv1.abc', AUTH_SERVER_CLIENT_SECRET: 'secret',
  AUTH_SERVER_ALLOW: 'github:octocat', AUTH_SCOPES: 'agents:chat',
};

describe('the signing key', () => {
  test('AUTH_SERVER_KEY turns auth on with the built-in server as issuer: ES256 only, its public key verifies, nothing is fetched', () => {
    const config = readAuthConfig({ AUTH_SERVER_KEY: KEY, AUTH_SCOPES: 'agents:chat' })!;
    expect(config.issuer).toBeUndefined();
    expect(config.algorithms).toEqual(['ES256']);
    expect(config.signingKey!.publicJwk).toEqual({ kty: 'EC', crv: 'P-256', x: JSON.parse(KEY).x, y: JSON.parse(KEY).y, kid: expect.any(String), alg: 'ES256', use: 'sig' });
    expect(config.signingKey!.publicJwk).not.toHaveProperty('d');
  });

  const { d: _d, ...publicOnly } = JSON.parse(KEY) as Record<string, string>;
  test.each([
    ['not JSON', 'nope', 'AUTH_SERVER_KEY must be an ES256 private key as a JWK'],
    ['an RSA key', JSON.stringify({ kty: 'RSA', n: 'x', e: 'AQAB' }), 'kty must be "EC" and crv "P-256"'],
    ['a public key alone', JSON.stringify(publicOnly), 'a public key alone cannot sign'],
    ['a point off the curve', JSON.stringify({ ...JSON.parse(KEY), y: JSON.parse(KEY).x }), 'node:crypto does not accept it'],
  ])('%s is refused, naming AUTH_SERVER_KEY', (_, value, message) => {
    expect(() => readAuthConfig({ AUTH_SERVER_KEY: value })).toThrow(TypeError);
    expect(() => readAuthConfig({ AUTH_SERVER_KEY: value })).toThrow(message);
  });

  test.each(['AUTH_ISSUER', 'AUTH_JWKS_URL', 'AUTH_ALGORITHMS'])('%s beside AUTH_SERVER_KEY is refused: one issuer', (name) => {
    expect(() => readAuthConfig({ AUTH_SERVER_KEY: KEY, [name]: 'https://a.example' })).toThrow(`${name} is set but so is AUTH_SERVER_KEY`);
  });

  test('the deployment\'s app refuses a bad key before it serves', async () => {
    const { createDefaultApp } = await import('../../../lib/app.js');
    expect(() => createDefaultApp({ AUTH_SERVER_KEY: '{}', PORT: '3000' })).toThrow(TypeError);
  });
});

describe('the server\'s settings', () => {
  test('off without AUTH_SERVER_KEY: every endpoint answers 404', async () => {
    expect(readAuthServerConfig({})).toBeUndefined();
    const response = await createAuthorizationServerHandler({})(new Request('http://localhost/.well-known/oauth-authorization-server'));
    expect(response.status).toBe(404);
  });

  test('GitHub with an allow-list of account ids, users, organisations, emails and domains: a GitHub name admits only as bound to an id (admit.ts)', () => {
    const config = readAuthServerConfig({ ...BASE, AUTH_SERVER_ALLOW: 'github:id:583231, github:OctoCat, github-org:acme, alice@Example.com, *@example.org' })!;
    expect(config.provider).toEqual({ kind: 'github', webUrl: 'https://github.com', apiUrl: 'https://api.github.com', clientId: 'Iv1.abc', clientSecret: 'secret' });
    expect(config.allow.admissions({ subject: 'github:583231', emails: [], githubId: 583231, githubLogin: 'renamed' })).toEqual([{ by: 'entry' }]);
    expect(config.allow.admissions({ subject: 'github:1', emails: [], githubId: 1, githubLogin: 'octocat' })).toEqual([{ by: 'name', kind: 'github', name: 'octocat', id: 1 }]);
    expect(config.allow.admissions({ subject: 'github:2', emails: [], githubId: 2, githubLogin: 'mallory', githubOrgs: [{ name: 'acme', id: 9 }] }))
      .toEqual([{ by: 'name', kind: 'github-org', name: 'acme', id: 9 }]);
    expect(config.allow.admissions({ subject: 'github:3', emails: ['alice@example.com'] })).toEqual([{ by: 'entry' }]);
    expect(config.allow.admissions({ subject: 'github:4', emails: ['bob@example.org'] })).toEqual([{ by: 'entry' }]);
    expect(config.allow.admissions({ subject: 'github:5', emails: ['bob@sub.example.org', 'eve@example.com'], githubId: 5, githubLogin: 'eve', githubOrgs: [] })).toEqual([]);
    expect(config.scopes).toEqual(['agents:chat']);
  });

  test.each(['github:id:', 'github:id:0', 'github:id:12a', 'github-org:id:9919'])('an allow-list entry %s is refused at start-up, naming the forms', (entry) => {
    expect(() => readAuthServerConfig({ ...BASE, AUTH_SERVER_ALLOW: entry }))
      .toThrow(`AUTH_SERVER_ALLOW entry "${entry}" is not an email, *@domain, github:id:<account id>, github:<user> or github-org:<organisation>.`);
  });

  test('GitHub Enterprise Server serves its API under /api/v3', () => {
    expect(readAuthServerConfig({ ...BASE, AUTH_SERVER_GITHUB_URL: 'https://github.example.com/' })!.provider)
      .toMatchObject({ webUrl: 'https://github.example.com', apiUrl: 'https://github.example.com/api/v3' });
  });

  test.each([
    [{ AUTH_SERVER_PROVIDER: undefined }, 'AUTH_SERVER_PROVIDER must be set when AUTH_SERVER_KEY is set'],
    [{ AUTH_SERVER_PROVIDER: 'google' }, 'AUTH_SERVER_PROVIDER must be github or oidc, got "google".'],
    [{ AUTH_SERVER_CLIENT_SECRET: '' }, 'AUTH_SERVER_CLIENT_SECRET must be set when AUTH_SERVER_PROVIDER is github'],
    [{ AUTH_SERVER_PROVIDER: 'oidc' }, 'AUTH_SERVER_OIDC_ISSUER must be set when AUTH_SERVER_PROVIDER is oidc'],
    [{ AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: 'http://accounts.example.com' }, 'AUTH_SERVER_OIDC_ISSUER must be an absolute https URL'],
    [{ AUTH_SERVER_ALLOW: '' }, 'AUTH_SERVER_ALLOW must list who may sign in'],
    [{ AUTH_SERVER_ALLOW: 'alice' }, 'AUTH_SERVER_ALLOW entry "alice" is not an email, *@domain, github:id:<account id>, github:<user> or github-org:<organisation>.'],
    [{ AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: 'https://a.example', AUTH_SERVER_ALLOW: 'github:octocat' }, 'names GitHub, but AUTH_SERVER_PROVIDER is oidc'],
    [{ AUTH_SERVER_SCOPES: 'admin' }, 'AUTH_SERVER_SCOPES must include every scope of AUTH_SCOPES; it lacks agents:chat.'],
    [{ AUTH_SERVER_SCOPES: 'agents:chat offline_access' }, 'AUTH_SERVER_SCOPES lists offline_access'],
    [{ AUTH_SERVER_CALLBACK_URL: 'https://prod.example.com/elsewhere' }, 'AUTH_SERVER_CALLBACK_URL must be another deployment\'s /oauth/callback'],
    [{ VERCEL: '1' }, 'AUTH_SERVER_KEY is set on Vercel without a shared store'],
  ])('%j is refused at start-up, naming the variable', (change, message) => {
    expect(() => readAuthServerConfig({ ...BASE, ...change })).toThrow(TypeError);
    expect(() => readAuthServerConfig({ ...BASE, ...change })).toThrow(message);
  });

  test('an AUTH_SERVER_* variable without AUTH_SERVER_KEY is refused', () => {
    expect(() => readAuthServerConfig({ AUTH_SERVER_ALLOW: 'a@b.example' })).toThrow('AUTH_SERVER_ALLOW is set but AUTH_SERVER_KEY is not');
  });
});
