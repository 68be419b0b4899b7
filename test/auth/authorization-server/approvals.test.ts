/**
 * Issue 42 item 1, RFC 9700 §4.11.2: anyone can register a client with any https redirect URI, so until a person has
 * approved that client and URI on the consent page, every error at /oauth/authorize is shown on a page of ours
 * (with a link the person may follow), never sent to the URI by a redirect. Once a person approved them in this
 * browser, errors go back to the client as RFC 6749 §4.1.2.1 says. The approval is sealed under the server's key.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { approvalCookie } from '../../../lib/auth/authorization-server/approvals.js';
import { clientDigest } from '../../../lib/auth/authorization-server/clients.js';
import { createServerKeyring } from '../../../lib/auth/authorization-server/keyring.js';
import { readSigningKey } from '../../../lib/auth/signing-key.js';
import { authorizationUrl, pkce, register } from '../../support/authz-client.js';
import { newSigningKey, startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';

const PHISH = 'https://phish.example/cb';
let stack: AuthzStack;
let phishing: string;

beforeAll(async () => {
  stack = await startAuthzStack();
  phishing = (await register(stack.origin, { redirect_uris: [PHISH, 'https://phish.example/other'], client_name: 'Totally Legit' })).body.client_id as string;
}, 30_000);
afterAll(() => stack?.close());

const authorize = (params: Record<string, string | null>, cookie?: string) =>
  fetch(authorizationUrl(stack.origin, { client_id: phishing, redirect_uri: PHISH, state: 'st', ...params }), { redirect: 'manual', headers: cookie ? { cookie } : {} });

/** A person approves `client` with `redirectUri` on the consent page; the cookies the browser then holds. */
async function approve(origin: string, client: string, redirectUri: string): Promise<string> {
  const shown = await fetch(authorizationUrl(origin, { client_id: client, redirect_uri: redirectUri, code_challenge: pkce().challenge }));
  expect(shown.status).toBe(200);
  const pending = shown.headers.getSetCookie()[0]!.split(';')[0]!;
  const id = /name="id" value="([^"]+)"/.exec(await shown.text())![1]!;
  const decided = await fetch(`${origin}/oauth/consent`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie: pending }, body: `id=${id}&decision=approve`,
  });
  expect(decided.status).toBe(303);
  const approval = decided.headers.getSetCookie().find((line) => line.startsWith('amcp_oauth_approved='));
  expect(approval).toBeDefined();
  return approval!.split(';')[0]!;
}

const REFUSALS = [
  ['response_type=token', { response_type: 'token', code_challenge: pkce().challenge }, 'unsupported_response_type', 'This server issues authorization codes only (response_type=code).'],
  ['no PKCE', { code_challenge: null, code_challenge_method: null }, 'invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.'],
  ['prompt=none', { prompt: 'none', code_challenge: pkce().challenge }, 'login_required', 'Signing in here always asks the person.'],
  ['PKCE plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request', 'Only the S256 PKCE method is accepted (code_challenge_method=S256).'],
  ['another resource', { code_challenge: pkce().challenge, resource: 'https://other.example/mcp' }, 'invalid_target', null],
] as const;

describe('before a person approved the client', () => {
  test.each(REFUSALS)('a freshly registered client\'s request with %s gets our page, never a redirect', async (_, params, error, description) => {
    const response = await authorize(params);
    expect([response.status, response.headers.get('location')]).toEqual([400, null]);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await response.text();
    if (description) expect(page).toContain(description.replaceAll("'", '&#39;'));
    // The one way on is a link the person follows, naming where it leads.
    expect(page).toContain('return to phish.example</a>');
    const link = new URL(/<a href="([^"]+)"/.exec(page)![1]!.replaceAll('&amp;', '&'));
    expect([link.origin + link.pathname, link.searchParams.get('error'), link.searchParams.get('state'), link.searchParams.get('iss')]).toEqual([PHISH, error, 'st', stack.origin]);
  });

  test('an approval sealed under another key, or altered, is not one', async () => {
    const forger = createServerKeyring([readSigningKey(newSigningKey())]);
    const request = new Request(stack.origin);
    const foreign = (await approvalCookie(forger, request, clientDigest(phishing), PHISH, false)).split(';')[0]!;
    const [name, value] = (await approve(stack.origin, phishing, PHISH)).split('=') as [string, string];
    const altered = `${name}=${value.slice(0, 10)}${value[10] === 'A' ? 'B' : 'A'}${value.slice(11)}`;
    for (const cookie of [foreign, altered]) {
      const response = await authorize({ prompt: 'none', code_challenge: pkce().challenge }, cookie);
      expect([response.status, response.headers.get('location')]).toEqual([400, null]);
    }
  });
});

describe('after a person approved the client and redirect URI in this browser', () => {
  test.each(REFUSALS)('a request with %s goes back to the client with the error', async (_, params, error) => {
    const cookie = await approve(stack.origin, phishing, PHISH);
    const response = await authorize(params, cookie);
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location')!);
    expect([back.origin + back.pathname, back.searchParams.get('error'), back.searchParams.get('state'), back.searchParams.get('iss')]).toEqual([PHISH, error, 'st', stack.origin]);
  });

  test('the approval covers that client and URI only: another URI of it, or another client with the same URI, gets the page', async () => {
    const cookie = await approve(stack.origin, phishing, PHISH);
    expect((await authorize({ prompt: 'none', code_challenge: pkce().challenge, redirect_uri: 'https://phish.example/other' }, cookie)).status).toBe(400);
    const twin = (await register(stack.origin, { redirect_uris: [PHISH] })).body.client_id as string;
    expect((await authorize({ prompt: 'none', code_challenge: pkce().challenge, client_id: twin }, cookie)).status).toBe(400);
  });
});
