/**
 * Test support: a stand-in for the Vercel REST API on loopback, for the real Vercel CLI (`--api <url> --token t`),
 * so the deploy commands the README gives run offline up to the upload. It answers as for a user with one team
 * and no projects: the CLI's link flow (who am I, which team, does the project exist, create it) succeeds, and the
 * first deployment request, recorded, is refused, so nothing is uploaded. Every request is recorded.
 */

import { createServer } from 'node:http';

export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

export interface VercelApi {
  url: string;
  requests: ApiRequest[];
  close(): Promise<void>;
}

const TEAM = { id: 'team_test', slug: 'tester', name: 'Tester', membership: { role: 'OWNER', confirmed: true } };

export async function startVercelApi(): Promise<VercelApi> {
  const requests: ApiRequest[] = [];
  const projects = new Map<string, Record<string, unknown>>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      const url = new URL(req.url!, 'http://api');
      requests.push({ method: req.method!, path: url.pathname, query: url.searchParams, body });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      const notFound = (message: string) => send(404, { error: { code: 'not_found', message } });
      if (url.pathname === '/v2/user') {
        return send(200, { user: { id: 'user_test', uid: 'user_test', username: 'tester', email: 'tester@example.com', defaultTeamId: TEAM.id, version: 'northstar' } });
      }
      if (url.pathname === '/v1/teams' || url.pathname === '/v2/teams') return send(200, { teams: [TEAM], pagination: { count: 1, next: null, prev: null } });
      if (url.pathname === `/v2/teams/${TEAM.id}`) return send(200, TEAM);
      const project = /^\/v\d+\/projects\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && project) return projects.has(project[1]!) ? send(200, projects.get(project[1]!)) : notFound('Project not found');
      if (req.method === 'POST' && /^\/v\d+\/projects$/.test(url.pathname)) {
        const { name } = JSON.parse(body) as { name: string };
        const created = { id: `prj_${name}`, name, accountId: TEAM.id, framework: null, rootDirectory: null, latestDeployments: [], env: [] };
        projects.set(name, created).set(created.id, created);
        return send(200, created);
      }
      if (req.method === 'POST' && /^\/v\d+\/deployments$/.test(url.pathname)) {
        return send(400, { error: { code: 'stand_in_api', message: 'the test API records the deployment and uploads nothing' } });
      }
      return notFound(`the test API does not know ${req.method} ${url.pathname}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
