/**
 * Test support: GitHub's side of a sign-in, scripted on loopback, as GitHub Enterprise Server lays it out (the
 * web flow at /login/oauth/*, the REST API under /api/v3), for one registered OAuth app and one person: the
 * authorization redirects back at once (the person is signed in and approves), the code exchange checks the app's
 * secret, the redirect URI and the PKCE verifier as GitHub does, and the API answers /user, /user/emails and
 * /user/memberships/orgs/:org with the person's data (read at each request, so a test can change who holds a login or
 * an organisation's name between sign-ins, as a rename does). Every request is recorded.
 */

import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

export interface GitHubPerson {
  id: number;
  login: string;
  emails?: Array<{ email: string; verified: boolean }>;
  /** Organisations the person is an active member of: the name and the organisation's immutable id. */
  orgs?: Array<{ login: string; id: number }>;
}

export interface GitHubStandIn {
  url: string;
  /** Each request as `METHOD path?query`. */
  requests: string[];
  close(): Promise<void>;
}

export async function startGitHubStandIn(app: { clientId: string; clientSecret: string; callback: string }, person: GitHubPerson): Promise<GitHubStandIn> {
  const requests: string[] = [];
  const codes = new Map<string, { challenge: string; redirect: string }>();
  const tokens = new Set<string>();
  const server = createServer(async (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url!, 'http://github.test');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== app.clientId || q.get('redirect_uri') !== app.callback || q.get('code_challenge_method') !== 'S256') return res.writeHead(400).end('bad authorization request');
      const code = randomBytes(10).toString('hex');
      codes.set(code, { challenge: q.get('code_challenge')!, redirect: q.get('redirect_uri')! });
      return res.writeHead(302, { location: `${q.get('redirect_uri')}?code=${code}&state=${encodeURIComponent(q.get('state')!)}` }).end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const issued = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verified = issued && createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') === issued.challenge;
      // GitHub answers a refused exchange with 200 and an error.
      if (form.get('client_id') !== app.clientId || form.get('client_secret') !== app.clientSecret) return json(200, { error: 'incorrect_client_credentials' });
      if (!issued || !verified || form.get('redirect_uri') !== issued.redirect) return json(200, { error: 'bad_verification_code' });
      const token = `gho_${randomBytes(12).toString('hex')}`;
      tokens.add(token);
      return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user' });
    }
    if (!tokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return json(401, { message: 'Bad credentials' });
    if (url.pathname === '/api/v3/user') return json(200, { id: person.id, login: person.login, email: null });
    if (url.pathname === '/api/v3/user/emails') return json(200, (person.emails ?? []).map((e, i) => ({ ...e, primary: i === 0, visibility: null })));
    const org = /^\/api\/v3\/user\/memberships\/orgs\/([^/]+)$/.exec(url.pathname)?.[1];
    const membership = org && (person.orgs ?? []).find((o) => o.login.toLowerCase() === decodeURIComponent(org).toLowerCase());
    if (membership) {
      return json(200, { state: 'active', role: 'member', organization: { login: membership.login, id: membership.id }, user: { login: person.login, id: person.id } });
    }
    if (org) return json(404, { message: 'Not Found' });
    json(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
