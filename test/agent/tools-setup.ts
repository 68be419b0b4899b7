/**
 * Test support for agents that use tools: agent-mcp behind real bearer auth on loopback, agents on the scripted
 * fake model (test/support/upstream-server.ts, "script …" messages), a real SDK server mounted as `docs` (its
 * tools need the docs:read scope), a paid local tool, and official SDK clients holding real tokens.
 */

import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions, type InProcessAgentDefinition } from '../../lib/agent/index.js';
import { createApp, type App } from '../../lib/app.js';
import { createBearerAuth, readAuthConfig, readSignIn } from '../../lib/auth/index.js';
import { createLimitsFromEnv } from '../../lib/limits/index.js';
import { createMounts, type Mounts } from '../../lib/mounts/index.js';
import { readPayConfig } from '../../lib/pay/config.js';
import { createPaymentEngine } from '../../lib/pay/engine.js';
import { withPayment } from '../../lib/pay/with-payment.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import type { Store } from '../../lib/store/types.js';
import { startDownstream, type Downstream } from '../support/downstream.js';
import { startIssuer } from '../support/issuer.js';
import { connectHttp, createV2Client, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

export const CHAT_SCOPE = 'agents:chat';
export const DOCS_SCOPE = 'docs:read';

export interface ToolsHarness {
  upstream: Upstream;
  docs: Downstream;
  app: App;
  server: TestServer;
  /** How many times the paid tool ran. */
  premiumRuns(): number;
  /** A real access token for `subject` with `scopes`. */
  token(subject: string, scopes: string[]): Promise<string>;
  /** An official client over HTTP holding a token for `subject` with `scopes`. */
  connect(era: Era, subject: string, scopes: string[]): Promise<Client>;
  close(): Promise<void>;
}

export interface ToolsHarnessOptions {
  /** The agents on the scripted model instead of the usual ones, by id: their settings besides id, format, url and model. */
  agents?: Record<string, Record<string, unknown>>;
  /** More variables (limits, budgets), read as the deployment reads them. */
  env?: Record<string, string>;
  /** More in-process agents besides the clerk. */
  inProcess?: InProcessAgentDefinition[];
  /** The store the app keeps its state in (a fresh memory store by default). */
  store?: Store;
}

export async function startToolsHarness(options: ToolsHarnessOptions = {}): Promise<ToolsHarness> {
  const [upstream, docs, issuer] = await Promise.all([startUpstream(), startDownstream('docs'), startIssuer()]);
  const model = (id: string, extra: Record<string, unknown> = {}) => ({ id, format: 'openai', url: `${upstream.url}/v1`, model: `${id}-model`, ...extra });
  const env = {
    AUTH_ISSUER: issuer.issuer,
    AUTH_SCOPES: CHAT_SCOPE,
    AGENT_TIMEOUT_MS: '10000',
    AGENTS: JSON.stringify(options.agents ? Object.entries(options.agents).map(([id, extra]) => model(id, extra)) : [
      model('research', { name: 'Research', tools: ['docs.*', 'premium', 'agent:writer'] }),
      model('writer', { name: 'Writer', description: 'Writes things down.', tools: ['docs.echo'] }),
      model('stepper', { tools: ['docs.echo'], maxToolSteps: 2 }),
      model('ping', { tools: ['agent:pong'] }),
      model('pong', { tools: ['agent:ping'] }),
      model('plain'),
    ]),
    ...options.env,
  };
  // An in-process agent using its tools through `turn.tools`: what it may use, then one call.
  const clerk: InProcessAgentDefinition = {
    id: 'clerk',
    name: 'Clerk',
    description: 'Files notes through the docs mount.',
    tools: ['docs.echo', 'premium'],
    async *reply({ message, tools }) {
      yield `may use: ${(await tools!.list()).map((t) => t.name).join(', ')}; `;
      const outcome = await tools!.call('docs.echo', { text: message });
      yield `${outcome.ok ? 'ok' : 'failed'}: ${outcome.text}`;
    },
  };
  let runs = 0;
  const pay = readPayConfig({ X402_PAY_TO: '0x0000000000000000000000000000000000000001' })!;
  const premium: ToolDefinition = withPayment({
    name: 'premium',
    description: 'A paid tool.',
    run: () => ({ content: [{ type: 'text', text: `premium ran ${++runs}` }] }),
  }, createPaymentEngine(pay));
  const mounts: Mounts = createMounts({ mounts: [{ name: 'docs', url: docs.url, scopes: [DOCS_SCOPE] }], waitMs: 10_000 });
  const authConfig = readAuthConfig(env)!;
  let app: App;
  app = createApp({
    definitions: [agentDefinitions(env, [clerk, ...(options.inProcess ?? [])], { connect: (principal, limits) => app.connectInProcess(principal, limits) }), { tools: [premium] }],
    mounts,
    limits: createLimitsFromEnv(env, undefined),
    auth: createBearerAuth(readSignIn(env), env),
    defaultScopes: authConfig.scopes,
    stateSecret: 't'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
    ...(options.store ? { store: options.store } : {}),
  });
  const server = await startTestServer(createMcpHandler(app));
  const clients: Client[] = [];
  const now = () => Math.floor(Date.now() / 1000);
  const token = (subject: string, scopes: string[]) =>
    issuer.mint({ iss: issuer.issuer, aud: server.mcpUrl, sub: subject, scope: scopes.join(' '), iat: now(), exp: now() + 600 });
  return {
    upstream,
    docs,
    app,
    server,
    premiumRuns: () => runs,
    token,
    async connect(era, subject, scopes) {
      const client = createV2Client(era);
      await connectHttp(client, server.mcpUrl, { authorization: `Bearer ${await token(subject, scopes)}` });
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await server.close();
      await mounts.close();
      await Promise.all([docs.close(), issuer.close()]);
      upstream.stop();
    },
  };
}

/** A message that makes the fake model follow `script` (see scriptedModel in upstream-server.ts). */
export const script = (value: Record<string, unknown>) => `script ${JSON.stringify({ ...value, nonce: crypto.randomUUID() })}`;
