/**
 * Sign-in with GitHub (a scripted stand-in laid out as GitHub Enterprise Server): the built-in server sends the
 * browser to GitHub with its own state and S256 challenge, asking only the scopes the allow-list needs, exchanges
 * the code with its verifier, and lets in GitHub users, members of GitHub organisations and verified emails the
 * allow-list names. The principal is `github:<numeric id>`. A login or an organisation's name admits only the
 * account or organisation it was bound to when it first admitted someone: after a rename, whoever takes the name
 * is refused (issue 42 item 4); an entry by id admits that account whatever its login.
 */

import { afterEach, describe, expect, test, vi } from 'vitest';
import { callWith, codeFor, register, tokenRequest } from '../../support/authz-client.js';
import { startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';
import type { GitHubPerson } from '../../support/github-stand-in.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
let stack: AuthzStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function signInAs(allow: string, person: GitHubPerson) {
  stack = await startAuthzStack({ allow, github: person });
  const client = (await register(stack.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
  const { code, verifier, landed } = await codeFor(stack.origin, client, REDIRECT);
  return { client, code, verifier, landed, stack };
}

describe('GitHub as the provider', () => {
  test('a GitHub user the allow-list names signs in; the token\'s principal is github:<id>, and GitHub was asked for read:user only', async () => {
    const { client, code, verifier, stack } = await signInAs('github:OctoCat', { id: 583231, login: 'octocat' });
    const tokens = await tokenRequest(stack.origin, { grant_type: 'authorization_code', code: code!, code_verifier: verifier, client_id: client, redirect_uri: REDIRECT });
    expect(JSON.parse((await callWith(stack.mcpUrl, tokens.body.access_token as string)).body.result.content[0].text)).toMatchObject({ subject: 'github:583231' });
    const authorize = new URL(stack.github!.requests.find((r) => r.startsWith('GET /login/oauth/authorize'))!.slice(4), 'http://x');
    expect(authorize.searchParams.get('scope')).toBe('read:user');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(stack.github!.requests.some((r) => r.includes('/user/emails') || r.includes('/memberships/'))).toBe(false);
  }, 30_000);

  test('an active member of an organisation the allow-list names signs in; someone else is refused', async () => {
    expect((await signInAs('github-org:acme', { id: 1, login: 'ada', orgs: [{ login: 'acme', id: 9919 }] })).code).toBeTruthy();
    expect(new URL(stack!.github!.requests.find((r) => r.startsWith('GET /login/oauth/authorize'))!.slice(4), 'http://x').searchParams.get('scope')).toBe('read:user read:org');
    await stack!.close();
    stack = undefined;
    const outsider = await signInAs('github-org:acme', { id: 2, login: 'mallory', orgs: [{ login: 'other', id: 77 }] });
    expect(outsider.landed.searchParams.get('error')).toBe('access_denied');
  }, 30_000);

  test('a verified GitHub email on the allow-list lets its owner in; an unverified one does not', async () => {
    expect((await signInAs('*@example.com', { id: 3, login: 'grace', emails: [{ email: 'Grace@Example.com', verified: true }] })).code).toBeTruthy();
    await stack!.close();
    stack = undefined;
    const unverified = await signInAs('grace@example.com', { id: 4, login: 'grace2', emails: [{ email: 'grace@example.com', verified: false }] });
    expect(unverified.landed.searchParams.get('error')).toBe('access_denied');
  }, 30_000);

  test('github:<login> is bound to the account it first admitted: after a rename, another account (a new id) taking the login is refused', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const person: GitHubPerson = { id: 583231, login: 'octocat' };
      const first = await signInAs('github:octocat', person);
      expect(first.code).toBeTruthy();
      expect(warn).toHaveBeenCalledWith('[agent-mcp] authorization server: bound 1 AUTH_SERVER_ALLOW name(s) to GitHub\'s ids (last: github:octocat is account 583231; write github:id:583231 to keep it so)');
      // octocat renames itself; someone else registers the free login: same login, a new id.
      Object.assign(person, { id: 999001, login: 'OctoCat' });
      const impostor = await codeFor(stack!.origin, first.client, REDIRECT);
      expect([impostor.code, impostor.landed.searchParams.get('error')]).toEqual([null, 'access_denied']);
      // The account it was bound to still gets in, and keeps its binding.
      Object.assign(person, { id: 583231, login: 'octocat' });
      expect((await codeFor(stack!.origin, first.client, REDIRECT)).code).toBeTruthy();
    } finally {
      warn.mockRestore();
    }
  }, 30_000);

  test('github:id:<n> admits that account under any login, and no other account holding its old login', async () => {
    const person: GitHubPerson = { id: 583231, login: 'octocat' };
    const first = await signInAs('github:id:583231', person);
    expect(first.code).toBeTruthy();
    Object.assign(person, { login: 'octocat-renamed' });
    expect((await codeFor(stack!.origin, first.client, REDIRECT)).code).toBeTruthy();
    Object.assign(person, { id: 999001, login: 'octocat' });
    expect((await codeFor(stack!.origin, first.client, REDIRECT)).landed.searchParams.get('error')).toBe('access_denied');
  }, 30_000);

  test('github-org:<name> is bound to the organisation\'s id: members of another organisation that takes the name after a rename are refused', async () => {
    const person: GitHubPerson = { id: 1, login: 'ada', orgs: [{ login: 'acme', id: 9919 }] };
    const first = await signInAs('github-org:acme', person);
    expect(first.code).toBeTruthy();
    Object.assign(person, { id: 2, login: 'mallory', orgs: [{ login: 'ACME', id: 31337 }] });
    expect((await codeFor(stack!.origin, first.client, REDIRECT)).landed.searchParams.get('error')).toBe('access_denied');
  }, 30_000);
});
