/** AUTH_* configuration: read once, and misuse stops the start-up with a TypeError naming the variable. */

import { describe, expect, test } from 'vitest';
import { readAuthConfig } from '../../lib/auth/config.js';

describe('AUTH_* configuration', () => {
  test('without AUTH_ISSUER auth is off', () => {
    expect(readAuthConfig({})).toBeUndefined();
  });

  test('AUTH_ISSUER alone turns auth on with asymmetric algorithms, no default scopes and 30 s of clock skew', () => {
    expect(readAuthConfig({ AUTH_ISSUER: 'https://auth.example.com/' })).toEqual({
      issuer: 'https://auth.example.com/',
      jwksUrl: undefined,
      audience: undefined,
      scopes: [],
      algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
      clockToleranceSec: 30,
    });
  });

  test('AUTH_SCOPES may be separated by spaces or commas; AUTH_ALGORITHMS narrows the list', () => {
    expect(readAuthConfig({ AUTH_ISSUER: 'https://a.example', AUTH_SCOPES: 'agents:chat, docs:read  admin', AUTH_ALGORITHMS: 'ES256' }))
      .toMatchObject({ scopes: ['agents:chat', 'docs:read', 'admin'], algorithms: ['ES256'] });
  });

  test.each([
    [{ AUTH_ISSUER: 'not a url' }, 'AUTH_ISSUER must be an absolute https URL (http only for localhost), got "not a url".'],
    [{ AUTH_ISSUER: 'http://auth.example.com' }, 'AUTH_ISSUER must be an absolute https URL (http only for localhost), got "http://auth.example.com".'],
    [{ AUTH_ISSUER: 'https://a.example', AUTH_JWKS_URL: 'ftp://a.example/jwks' }, 'AUTH_JWKS_URL must be an absolute https URL (http only for localhost), got "ftp://a.example/jwks".'],
    [{ AUTH_ISSUER: 'https://a.example', AUTH_ALGORITHMS: 'RS256,HS256' }, 'AUTH_ALGORITHMS may list only asymmetric algorithms; not HS256.'],
    [{ AUTH_SCOPES: 'a b' }, 'AUTH_SCOPES is set but neither AUTH_ISSUER nor MCP_API_KEYS is; set one of them to turn auth on.'],
    [{ AUTH_AUDIENCE: 'https://a.example/mcp' }, 'AUTH_AUDIENCE is set but AUTH_ISSUER is not; set AUTH_ISSUER to turn auth on.'],
  ])('%j is refused at start-up', (env, message) => {
    expect(() => readAuthConfig(env)).toThrow(new TypeError(message));
  });

  test('http is allowed for a loopback issuer (development)', () => {
    expect(readAuthConfig({ AUTH_ISSUER: 'http://localhost:8080' })?.issuer).toBe('http://localhost:8080');
  });
});

test('the deployment\'s app does not start with a misused AUTH_* variable', async () => {
  const { createDefaultApp } = await import('../../lib/app.js');
  expect(() => createDefaultApp({ AUTH_ISSUER: 'https://a.example', AUTH_ALGORITHMS: 'none' })).toThrow(TypeError);
});
