/**
 * The sign-in modes as a table (lib/auth/modes): each row reads its own variables and refuses bad ones naming them,
 * recognises the credentials it owns, verifies them to a principal of its kind and describes itself to the start-up
 * line, the health probe and mcp.json; the one verifier (lib/auth/verifier.ts) routes every token by the table. A
 * mode added later is one more row: the last tests add one and run it through the same verifier, with a real issuer.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { describeAuth } from '../../lib/auth/index.js';
import { discoveryOf, healthOf, readSignIn, SIGN_IN_MODES } from '../../lib/auth/modes/index.js';
import type { ActiveMode, PresentedToken, SignInMode } from '../../lib/auth/modes/mode.js';
import { createBearerVerifier } from '../../lib/auth/verifier.js';
import { apiKeyLine } from '../../lib/auth/api-keys.js';
import { principalKey } from '../../lib/server/principal-key.js';
import { mintTestKey } from '../support/api-keys.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { newSigningKey } from '../support/signing-key.js';

const ORIGIN = 'http://localhost:3000';
const CONTEXT = { audiences: [`${ORIGIN}/mcp`], origin: ORIGIN };
const KEY = mintTestKey();
const KEYS = apiKeyLine('ci', KEY, ['agents:chat']);
const ISSUER = 'https://auth.example.com';
const kinds = (env: Record<string, string>) => readSignIn(env).map((m) => m.kind);
/** A JWT's shape with the given claims, unsigned: what a mode recognises before anything is verified. */
const unsigned = (claims: Record<string, unknown>) => `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;
const presented = (text: string, claims?: Record<string, unknown>): PresentedToken => ({ text, claims: () => claims });

describe('each mode reads its own variables', () => {
  test('off when they are unset; on in table order when they are', () => {
    expect(kinds({})).toEqual([]);
    expect(kinds({ AUTH_ISSUER: ISSUER })).toEqual(['issuer']);
    expect(kinds({ AUTH_SERVER_KEY: newSigningKey() })).toEqual(['authorization-server']);
    expect(kinds({ MCP_API_KEYS: KEYS })).toEqual(['api-key']);
    expect(kinds({ MCP_API_KEYS: KEYS, AUTH_ISSUER: ISSUER })).toEqual(['issuer', 'api-key']);
  });

  test.each([
    [{ AUTH_ISSUER: 'http://auth.example.com' }, 'AUTH_ISSUER must be an absolute https URL'],
    [{ AUTH_SERVER_KEY: '{}' }, 'AUTH_SERVER_KEY must be an ES256 private key'],
    [{ AUTH_SERVER_KEY: newSigningKey(), AUTH_ISSUER: ISSUER }, 'AUTH_ISSUER is set but so is AUTH_SERVER_KEY'],
    [{ MCP_API_KEYS: 'ci' }, 'MCP_API_KEYS line 1 is not'],
  ])('%j is refused, naming the variable', (env, message) => {
    expect(() => readSignIn(env)).toThrow(message);
  });
});

describe('each mode recognises the credentials it owns', () => {
  const [issuer] = readSignIn({ AUTH_ISSUER: ISSUER });
  const [builtIn] = readSignIn({ AUTH_SERVER_KEY: newSigningKey() });
  const [keys] = readSignIn({ MCP_API_KEYS: KEYS });

  test('an API key by its prefix', () => {
    expect(keys!.recognises(presented(KEY), ORIGIN)).toBe(true);
    expect(keys!.recognises(presented(unsigned({ iss: ISSUER })), ORIGIN)).toBe(false);
  });

  test('a JWT by its issuer: AUTH_ISSUER, or the deployment\'s own origin for the built-in server', () => {
    const fromIssuer = unsigned({ iss: ISSUER, sub: 'alice' });
    const fromHere = unsigned({ iss: ORIGIN, sub: 'github:42' });
    const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(issuer!.recognises(presented(fromIssuer, claims(fromIssuer)), ORIGIN)).toBe(true);
    expect(issuer!.recognises(presented(fromHere, claims(fromHere)), ORIGIN)).toBe(false);
    expect(builtIn!.recognises(presented(fromHere, claims(fromHere)), ORIGIN)).toBe(true);
    expect(builtIn!.recognises(presented(fromIssuer, claims(fromIssuer)), ORIGIN)).toBe(false);
    expect(issuer!.recognises(presented(KEY), ORIGIN)).toBe(false);
  });

  test('a key verifies to a principal of kind api-key, named by its line', async () => {
    expect(await createBearerVerifier([keys!])(KEY, CONTEXT)).toEqual({ ok: true, principal: { kind: 'api-key', subject: 'ci', scopes: ['agents:chat'] } });
  });
});

describe('each mode describes itself', () => {
  const both = readSignIn({ AUTH_ISSUER: ISSUER, MCP_API_KEYS: KEYS });

  test('to the start-up line, in its own words', () => {
    expect(describeAuth({ modes: both })).toBe(`OAuth bearer tokens from ${ISSUER} or API keys (1 in MCP_API_KEYS)`);
    expect(describeAuth({ modes: readSignIn({ AUTH_SERVER_KEY: newSigningKey() }) }))
      .toBe('OAuth bearer tokens from the built-in authorization server at this deployment\'s origin (AUTH_SERVER_KEY)');
  });

  test('to mcp.json and the health probe: the first mode, and the keys beside it as a flag', () => {
    expect(discoveryOf(both, ORIGIN)).toEqual({
      type: 'oauth-protected-resource', resourceMetadata: `${ORIGIN}/mcp/oauth-protected-resource`,
      authorizationServers: [ISSUER], scopes: [], apiKeys: true,
    });
    expect(discoveryOf(readSignIn({ MCP_API_KEYS: KEYS }), ORIGIN)).toEqual({ type: 'api-key', header: 'Authorization', scheme: 'Bearer' });
    expect(discoveryOf([], ORIGIN)).toEqual({ type: 'public' });
    expect(healthOf(both)).toMatchObject({ mode: 'issuer', issuer: { name: ISSUER }, flags: ['apiKeys'] });
    expect(healthOf(readSignIn({ MCP_API_KEYS: KEYS }))).toEqual({ mode: 'api-keys', flags: [] });
  });
});

describe('a mode added later is one more row', () => {
  /** A stand-in for the next mode: tokens `ex_<name>` when EXAMPLE_NAMES lists the name. */
  const exampleMode: SignInMode = {
    kind: 'example',
    credentials: 'example tokens',
    principalName: 'an example token\'s principal',
    owns: (token) => token.text.startsWith('ex_'),
    off: 'This server accepts no example tokens.',
    read(env) {
      if (!env.EXAMPLE_NAMES) return undefined;
      const names = new Set(env.EXAMPLE_NAMES.split(','));
      const mode: ActiveMode = {
        kind: 'example',
        credentials: 'example tokens',
        recognises: (token) => token.text.startsWith('ex_'),
        verify: async (token) => (names.has(token.slice(3))
          ? { ok: true, principal: { kind: 'example', subject: token.slice(3), scopes: [] } }
          : { ok: false, description: 'The example token is not valid.' }),
        startup: 'example tokens',
        health: { mode: 'example' },
        discovery: () => ({ type: 'example' }),
        besides: 'example',
      };
      return mode;
    },
  };
  const table = [...SIGN_IN_MODES, exampleMode];
  let issuer: TestIssuer;
  const now = () => Math.floor(Date.now() / 1000);
  const jwtFor = (sub: string) => issuer.mint({ iss: issuer.issuer, aud: CONTEXT.audiences[0], sub, iat: now(), exp: now() + 300 });
  beforeAll(async () => {
    issuer = await startIssuer();
  });
  afterAll(async () => {
    await issuer?.close();
  });

  test('its token reaches a principal of its kind, keyed in its own namespace; the other modes keep theirs', async () => {
    const modes = readSignIn({ AUTH_ISSUER: issuer.issuer, MCP_API_KEYS: KEYS, EXAMPLE_NAMES: 'bob' }, table);
    expect(modes.map((m) => m.kind)).toEqual(['issuer', 'api-key', 'example']);
    const verify = createBearerVerifier(modes, table);
    const bob = await verify('ex_bob', CONTEXT);
    expect(bob).toEqual({ ok: true, principal: { kind: 'example', subject: 'bob', scopes: [] } });
    expect(bob.ok && principalKey(bob.principal)).toBe('example:bob');
    expect(await verify('ex_eve', CONTEXT)).toEqual({ ok: false, description: 'The example token is not valid.' });
    expect(await verify(KEY, CONTEXT)).toMatchObject({ ok: true, principal: { kind: 'api-key', subject: 'ci' } });
    expect(await verify(await jwtFor('alice'), CONTEXT)).toMatchObject({ ok: true, principal: { kind: 'issuer', subject: 'alice' } });
    expect(discoveryOf(modes, ORIGIN)).toMatchObject({ type: 'oauth-protected-resource', apiKeys: true, example: true });
  });

  test('a token from an issuer whose sub enters its namespace is refused, as one entering the keys\' is', async () => {
    const verify = createBearerVerifier(readSignIn({ AUTH_ISSUER: issuer.issuer }, table), table);
    expect(await verify(await jwtFor('example:bob'), CONTEXT)).toEqual({ ok: false, description: 'The token\'s sub claim names an example token\'s principal.' });
    expect(await verify(await jwtFor('key:ci'), CONTEXT)).toEqual({ ok: false, description: 'The token\'s sub claim names an API key\'s principal.' });
    expect(await verify(await jwtFor('examples'), CONTEXT)).toMatchObject({ ok: true, principal: { subject: 'examples' } });
  });

  test('off, its tokens are told so; on alone, anything else is told what the server takes', async () => {
    expect(await createBearerVerifier(readSignIn({ MCP_API_KEYS: KEYS }, table), table)('ex_bob', CONTEXT))
      .toEqual({ ok: false, description: 'This server accepts no example tokens.' });
    const alone = createBearerVerifier(readSignIn({ EXAMPLE_NAMES: 'bob' }, table), table);
    expect(await alone(await jwtFor('alice'), CONTEXT)).toEqual({ ok: false, description: 'This server accepts only example tokens.' });
    expect(await alone(KEY, CONTEXT)).toEqual({ ok: false, description: 'This server accepts no API keys.' });
  });
});
