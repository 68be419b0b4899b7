/**
 * A mount's scopes gate everything used with its credentials (docs/security.md "What scopes gate"), over real
 * loopback HTTP with real tokens: a token without them sees none of the mount's tools, resources, templates or
 * prompts, and reading, getting, completing or calling any of them (a URI under a template's literal prefix
 * included, and the tasks of its tools) is 403 insufficient_scope with the step-up challenge, while the mounted
 * server receives no request at all. A token with them gets everything.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { createBearerAuth, readAuthConfig, readSignIn } from '../../lib/auth/index.js';
import { createMounts, type Mounts } from '../../lib/mounts/index.js';
import { INSUFFICIENT_SCOPE } from '../../lib/protocol/errors.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { startDownstream, type Downstream } from '../support/downstream.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { whoami } from '../support/mounts.js';
import { challengeOf } from '../support/protected-app.js';
import { post, postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startTaskMount, type TaskMount } from '../support/task-mount.js';

const DEFAULT = 'mcp';
const PRIV = 'priv:admin';
const JOBS = 'jobs:run';

let issuer: TestIssuer;
let priv: Downstream;
let jobs: TaskMount;
let mounts: Mounts;
let server: TestServer;

beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  [issuer, priv, jobs] = await Promise.all([startIssuer(), startDownstream('priv'), startTaskMount()]);
  const env = { AUTH_ISSUER: issuer.issuer, AUTH_SCOPES: DEFAULT };
  const config = readAuthConfig(env)!;
  mounts = createMounts({ mounts: [{ name: 'priv', url: priv.url, scopes: [PRIV] }, { name: 'jobs', url: jobs.url, scopes: [JOBS] }], waitMs: 10_000 });
  const app = createApp({
    definitions: [{ tools: [whoami] }],
    mounts,
    auth: createBearerAuth(readSignIn(env), env),
    defaultScopes: config.scopes,
    stateSecret: 'a'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
  });
  server = await startTestServer(createMcpHandler(app));
  await mounts.waitForConnections();
});
afterAll(async () => {
  await server?.close();
  await mounts?.close();
  await Promise.all([priv?.close(), jobs?.close(), issuer?.close()]);
  vi.restoreAllMocks();
});

const now = () => Math.floor(Date.now() / 1000);
const bearer = async (scopes: string[]) => ({
  authorization: `Bearer ${await issuer.mint({ iss: issuer.issuer, aud: server.mcpUrl, sub: 'alice', scope: scopes.join(' '), iat: now(), exp: now() + 300 })}`,
});
const ask = async (scopes: string[], method: string, params: Record<string, unknown> = {}) =>
  post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method, params }, { 'mcp-protocol-version': '2025-11-25', ...(await bearer(scopes)) });

const LISTS: Array<[method: string, pick: (result: any) => string[], mounted: string]> = [
  ['tools/list', (r) => r.tools.map((t: any) => t.name), 'priv.echo'],
  ['resources/list', (r) => r.resources.map((x: any) => x.uri), 'note://priv/readme'],
  ['resources/templates/list', (r) => r.resourceTemplates.map((t: any) => t.uriTemplate), 'note://priv/items/{id}'],
  ['prompts/list', (r) => r.prompts.map((p: any) => p.name), 'priv.greet'],
];

const USES: Array<[what: string, method: string, params: Record<string, unknown>]> = [
  ['a tool call', 'tools/call', { name: 'priv.echo', arguments: { text: 'hi' } }],
  ['a resource read', 'resources/read', { uri: 'note://priv/readme' }],
  ['a read through a template', 'resources/read', { uri: 'note://priv/items/1' }],
  ['a read of any URI under the template\'s literal prefix', 'resources/read', { uri: 'note://priv/items/../../anything' }],
  ['a prompt', 'prompts/get', { name: 'priv.greet', arguments: { who: 'Ada' } }],
  ['a prompt argument\'s completion', 'completion/complete', { ref: { type: 'ref/prompt', name: 'priv.greet' }, argument: { name: 'who', value: 'A' } }],
  ['a template variable\'s completion', 'completion/complete', { ref: { type: 'ref/resource', uri: 'note://priv/items/{id}' }, argument: { name: 'id', value: '1' } }],
];

describe('a token without the mount\'s scopes', () => {
  test.each(LISTS)('%s leaves out what the mount serves, and asks the mount nothing', async (method, pick, mounted) => {
    const seen = priv.methods.length;
    const response = await ask([DEFAULT], method);
    expect(response.status).toBe(200);
    expect(pick((await response.json()).result)).not.toContain(mounted);
    expect(priv.methods.slice(seen)).toEqual([]);
  });

  test.each(USES)('%s is 403 insufficient_scope with the step-up challenge, and the mount receives no request', async (_what, method, params) => {
    const seen = priv.methods.length;
    const response = await ask([DEFAULT], method, params);
    expect(response.status).toBe(403);
    expect(challengeOf(response)).toMatchObject({ error: 'insufficient_scope', scope: `${PRIV} ${DEFAULT}` });
    expect((await response.json()).error).toMatchObject({ code: INSUFFICIENT_SCOPE, data: { requiredScopes: [PRIV], grantedScopes: [DEFAULT] } });
    expect(priv.methods.slice(seen)).toEqual([]);
  });
});

describe('a token with the mount\'s scopes', () => {
  test.each(LISTS)('%s lists what the mount serves', async (method, pick, mounted) => {
    const response = await ask([DEFAULT, PRIV], method);
    expect(pick((await response.json()).result)).toContain(mounted);
  });

  test.each(USES.filter(([what]) => !what.includes('any URI')))('%s is forwarded and answered', async (_what, method, params) => {
    const seen = priv.methods.length;
    const response = await ask([PRIV], method, params);
    expect(response.status).toBe(200);
    expect((await response.json()).result).toBeDefined();
    expect(priv.methods.slice(seen)).toEqual([method]);
  });
});

describe('a task of a mounted tool is followed with the mount\'s credentials', () => {
  const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
  const modern = async (scopes: string[], method: string, params: Record<string, unknown>) =>
    postModern(server.mcpUrl, 1, method, params, { capabilities: WITH_TASKS, headers: { ...(await bearer(scopes)), ...(params.taskId ? { 'mcp-name': String(params.taskId) } : {}) } });

  test('so tasks/get of it needs the tool\'s scopes: without them it is 403 and the mount is not asked', async () => {
    const created = await (await modern([JOBS], 'tools/call', { name: 'jobs.job', arguments: { ms: 30_000 } })).json();
    const { taskId } = created.result;
    const seen = jobs.requests.length;

    const refused = await modern([DEFAULT], 'tasks/get', { taskId });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toMatchObject({ code: INSUFFICIENT_SCOPE, data: { requiredScopes: [JOBS] } });
    expect(jobs.requests.slice(seen)).toEqual([]);

    const allowed = await modern([JOBS], 'tasks/get', { taskId });
    expect((await allowed.json()).result).toMatchObject({ taskId, status: 'working' });
    expect(jobs.requests.slice(seen).map((r) => r.method)).toEqual(['tasks/get']);
    await modern([JOBS], 'tasks/cancel', { taskId });
  });
});
