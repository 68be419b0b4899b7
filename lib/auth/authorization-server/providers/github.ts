/**
 * Sign-in with GitHub (an OAuth app or a GitHub App's user authorization, on github.com or GitHub Enterprise
 * Server at AUTH_SERVER_GITHUB_URL): the code is exchanged with the server's PKCE verifier, then the user, and
 * only what the allow-list needs: verified emails (scope user:email) and membership of the listed organisations
 * (read:org), with the ids of those organisations. The principal is `github:<numeric id>`, which a renamed or
 * re-registered login does not take over.
 */

import { isRecord } from '../../../checks.js';
import type { AllowList, UpstreamIdentity } from '../allow-list.js';
import type { Provider } from '../config.js';
import type { SignIn } from './types.js';
import { isFailure, providerJson, type ProviderFailure } from './http.js';

type GitHub = Extract<Provider, { kind: 'github' }>;


export function createGitHubSignIn(github: GitHub, allow: AllowList): SignIn {
  const scope = ['read:user', ...(allow.needsEmails ? ['user:email'] : []), ...(allow.githubOrgs.length ? ['read:org'] : [])].join(' ');
  const api = (path: string, token: string) => providerJson(`${github.apiUrl}${path}`, {
    headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${token}`, 'user-agent': 'agent-mcp', 'x-github-api-version': '2022-11-28' },
  });

  async function exchange(code: string, callbackUrl: string, codeVerifier: string): Promise<string | ProviderFailure> {
    const reply = await providerJson(`${github.webUrl}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: github.clientId, client_secret: github.clientSecret, code, redirect_uri: callbackUrl, code_verifier: codeVerifier }),
    });
    if (isFailure(reply)) return reply;
    // GitHub answers a refused exchange with 200 and an `error` field.
    const body = isRecord(reply.body) ? reply.body : {};
    return typeof body.access_token === 'string' ? body.access_token : { failure: `GitHub refused the code: ${String(body.error ?? 'no access_token')}` };
  }

  async function verifiedEmails(token: string): Promise<string[] | ProviderFailure> {
    const reply = await api('/user/emails', token);
    if (isFailure(reply)) return reply;
    return (Array.isArray(reply.body) ? reply.body : [])
      .filter((e): e is { email: string; verified: true } => isRecord(e) && e.verified === true && typeof e.email === 'string')
      .map((e) => e.email.toLowerCase());
  }

  /** The listed organisations the person is an active member of, each with the id of the organisation that bears the name now. */
  async function memberOf(token: string): Promise<Array<{ name: string; id: number }>> {
    const member = await Promise.all(allow.githubOrgs.map(async (name) => {
      const reply = await api(`/user/memberships/orgs/${encodeURIComponent(name)}`, token);
      if (isFailure(reply) || !isRecord(reply.body) || reply.body.state !== 'active' || !isRecord(reply.body.organization)) return undefined;
      const { id } = reply.body.organization;
      return typeof id === 'number' ? { name, id } : undefined;
    }));
    return member.filter((org) => org !== undefined);
  }

  return {
    name: 'GitHub',
    async authorizationUrl({ callbackUrl, state, codeChallenge }) {
      const url = new URL(`${github.webUrl}/login/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: github.clientId, redirect_uri: callbackUrl, scope, state, code_challenge: codeChallenge, code_challenge_method: 'S256', allow_signup: 'false',
      }).toString();
      return url.href;
    },
    async identify({ code, callbackUrl, codeVerifier }): Promise<UpstreamIdentity | ProviderFailure> {
      const token = await exchange(code, callbackUrl, codeVerifier);
      if (isFailure(token)) return token;
      const user = await api('/user', token);
      if (isFailure(user)) return user;
      const { id, login } = isRecord(user.body) ? user.body : {};
      if (typeof id !== 'number' || typeof login !== 'string') return { failure: 'GitHub /user has no id and login' };
      const emails = allow.needsEmails ? await verifiedEmails(token) : [];
      if (isFailure(emails)) return emails;
      return { subject: `github:${id}`, emails, githubId: id, githubLogin: login.toLowerCase(), githubOrgs: await memberOf(token) };
    },
  };
}
