/**
 * Every deployment advertises itself: the public origin behind every URL we publish (and the audience we
 * verify) comes from PUBLIC_URL, else on Vercel from the forwarded host, VERCEL_BRANCH_URL or VERCEL_URL,
 * else from Host. Off Vercel forwarded headers are not trusted.
 */

import { describe, expect, test } from 'vitest';
import { createProtectedResourceHandler } from '../../lib/auth/metadata.js';
import { createDiscoveryHandler } from '../../lib/discovery/documents.js';
import { publicOrigin } from '../../lib/http/public-url.js';

const PREVIEW = { 'x-forwarded-host': 'agent-git-feature-team.vercel.app', 'x-forwarded-proto': 'https', host: 'agent-git-feature-team.vercel.app' };
const request = (headers: Record<string, string>, url = 'http://internal.invalid/api/mcp') => new Request(url, { headers });

describe('the public origin of a request', () => {
  test.each<[string, Record<string, string>, Record<string, string>, string]>([
    ['on Vercel, the forwarded host and protocol of a preview', PREVIEW, { VERCEL: '1', VERCEL_URL: 'agent-abc123-team.vercel.app' }, 'https://agent-git-feature-team.vercel.app'],
    ['on Vercel, the production domain a request reached', { 'x-forwarded-host': 'agent.example.com', host: 'agent.example.com' }, { VERCEL: '1', VERCEL_URL: 'agent-abc123-team.vercel.app' }, 'https://agent.example.com'],
    ['on Vercel without forwarded headers, VERCEL_BRANCH_URL', {}, { VERCEL: '1', VERCEL_BRANCH_URL: 'agent-git-feature-team.vercel.app', VERCEL_URL: 'agent-abc123-team.vercel.app' }, 'https://agent-git-feature-team.vercel.app'],
    ['on Vercel without forwarded headers or a branch, VERCEL_URL', {}, { VERCEL: '1', VERCEL_URL: 'agent-abc123-team.vercel.app' }, 'https://agent-abc123-team.vercel.app'],
    ['PUBLIC_URL over everything', PREVIEW, { VERCEL: '1', PUBLIC_URL: 'https://agent.example.com/some/path' }, 'https://agent.example.com'],
    ['locally, the Host header', { host: 'localhost:3000' }, {}, 'http://localhost:3000'],
    ['locally, forwarded headers are the client\'s word and are ignored', { host: 'localhost:3000', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }, {}, 'http://localhost:3000'],
    ['a forwarded host that is not a host name is ignored', { 'x-forwarded-host': 'evil.example/path"', host: 'agent.example.com' }, { VERCEL: '1' }, 'https://agent.example.com'],
    ['the first of several forwarded hosts', { 'x-forwarded-host': 'agent.example.com, proxy.internal' }, { VERCEL: '1' }, 'https://agent.example.com'],
  ])('%s', (_name, headers, env, origin) => {
    expect(publicOrigin(request(headers), env)).toBe(origin);
  });
});

describe('previews advertise themselves', () => {
  const env = { VERCEL: '1', VERCEL_URL: 'agent-abc123-team.vercel.app', AUTH_ISSUER: 'https://auth.example.com' };

  test('the PRM of a preview names the preview\'s MCP URL as the resource', async () => {
    const response = await createProtectedResourceHandler(env)(request(PREVIEW, 'http://internal.invalid/api/wk-oauth-protected-resource?path=mcp'));
    expect(await response.json()).toMatchObject({
      resource: 'https://agent-git-feature-team.vercel.app/mcp',
      resource_documentation: 'https://agent-git-feature-team.vercel.app/',
    });
  });

  test('mcp.json and the server card of a preview name the preview', async () => {
    const handler = createDiscoveryHandler(env);
    const doc = await (await handler(request(PREVIEW, 'http://internal.invalid/api/wk-mcp?doc=mcp'))).json();
    expect(doc).toMatchObject({
      url: 'https://agent-git-feature-team.vercel.app/mcp',
      auth: { resourceMetadata: 'https://agent-git-feature-team.vercel.app/mcp/oauth-protected-resource' },
    });
    const card = await (await handler(request(PREVIEW, 'http://internal.invalid/api/wk-mcp?doc=card'))).json();
    expect(card).toMatchObject({ name: 'app.vercel.agent-git-feature-team/agent-mcp', remotes: [{ url: 'https://agent-git-feature-team.vercel.app/mcp' }] });
  });
});
