/**
 * An application: the dispatcher over a registry, the store it shares state through, and the origin policy
 * of its HTTP endpoint. The deployment's default app is built from the environment; tests and the conformance
 * server build their own from the same parts.
 */

import { agentDefinitions, type AgentOptions } from './agent/index.js';
import additions from '../tools/index.js';
import { ADDITIONS_ORIGIN, additionDefinitions } from './define/additions.js';
import type { Additions } from './define/index.js';
import { readConfig } from './config.js';
import { INSTRUCTIONS, SERVER_INFO } from './identity.js';
import { originPolicyOf, type OriginPolicy } from './http/origin.js';
import { createSessions, type Sessions } from './http/session.js';
import { createDispatcher, createKeptReplies, type Dispatch, type KeptReply } from './server/dispatch.js';
import { InProcessTransport, type InProcessLimits } from './server/in-process.js';
import { listToolsInProcess, mountStatusDefinitions, mountsFromEnv, type Mounts } from './mounts/index.js';
import type { Principal } from './server/context.js';
import { createRegistry } from './server/create-registry.js';
import type { RegistryDefinition } from './server/registry.js';
import { createServer, type ServerInfo, type ServerOptions } from './server/server.js';
import { MemoryStore } from './store/memory.js';
import { createUsageCounter, readUsageCounting, type UsageCounter } from './usage/counter.js';
import type { Store } from './store/types.js';
import { createLimitsFromEnv, type RequestLimits } from './limits/index.js';
import { readCallSlots, type CallSlots } from './limits/concurrency.js';
import { trustsForwardedAddress } from './limits/check.js';
import { createBearerAuth, describeAuth, readAuthScopes, readSignIn, type BearerAuth } from './auth/index.js';
import { readPayConfig } from './pay/config.js';
import { createPaymentEngine } from './pay/engine.js';
import { withPaidTool } from './pay/with-payment.js';
import { agentOffers } from './pay/agent-offers.js';
import { AGENT_ORIGIN } from './agent/index.js';
import { selectStore } from './store/select.js';
import { describeRequestBounds, readRequestBounds, type RequestBounds } from './http/bounds.js';
import { readUpstashConfig } from './store/upstash-config.js';
import { readLogLevel } from './observe/request-log.js';
import { describeStartup, type StartupReport } from './observe/startup.js';
import { agentTokenBudgets, readAgents } from './agent/config.js';
import { readHealthTimeout } from './observe/health-route.js';
import { describeTaskSettings, readTaskSettings, type TaskSettings } from './tasks/settings.js';
// The features are imported, not loaded on demand: a dynamic import splits the modules it shares into a chunk of its
// own, and loading that extra file cost a cold start more (+1.5 ms median) than these few kilobytes do (+0.2 ms). The
// skills methods (2 KB) likewise: on demand, they put a 7 KB shared chunk on the start path (docs/performance.md).
import { tasksFeature } from './tasks/feature.js';
import { servedSkills } from './skills/feature.js';
import { paymentsFeature } from './pay/feature.js';

export { INSTRUCTIONS, SERVER_INFO } from './identity.js';

export interface App {
  dispatch: Dispatch;
  /** What the dispatcher answers before a call is set up (a kept list page); none when absent. */
  kept?: KeptReply;
  store: Store;
  /** The legacy wire's stateless `Mcp-Session-Id`s, MACs under the server's key (lib/http/session.ts). */
  sessions: Sessions;
  origin: OriginPolicy;
  /**
   * A client transport on this app with no network hop; `principal` counts as a verified token. `limits` carries the
   * per-tool limits of an HTTP caller the connection acts for (an agent calling tools for it).
   */
  connectInProcess(principal?: Principal, limits?: InProcessLimits): InProcessTransport;
  /** The MCP servers mounted into this app (docs/mounts.md "Mount MCP servers and call agent-mcp in-process"). */
  mounts?: Mounts;
  /** The HTTP endpoint's rate limits (docs/rate-limits.md "Rate limits"); none when absent. */
  limits?: RequestLimits;
  /** Bearer auth of the HTTP endpoint (docs/oauth.md "Authentication (OAuth 2.1)"); none when absent. */
  auth?: BearerAuth;
  /** Body, JSON depth and batch bounds of the HTTP endpoint (docs/security.md "Bounds"); defaults when absent. */
  bounds?: RequestBounds;
  /** One JSON line per request on stdout (docs/observability.md "Observability"; MCP_LOG); off when absent. */
  requestLog?: boolean;
  /** The longest each health probe waits (MCP_HEALTH_TIMEOUT_MS); the default when absent. */
  healthTimeoutMs?: number;
  /**
   * Each caller's share of concurrent calls (MCP_MAX_CONCURRENT_CALLS) and the instance's (MCP_MAX_CALLS_PER_INSTANCE);
   * when absent, the environment's (api/mcp.ts).
   */
  calls?: CallSlots;
  /** What start-up says about it (lib/observe/startup.ts); the deployment's app has one. */
  startup?: StartupReport;
  /** Counts each request for the usage page (lib/usage/counter.ts; USAGE_COUNTERS); nothing counted when absent. */
  usage?: UsageCounter;
}

export interface AppOptions extends Omit<ServerOptions, 'registry' | 'info' | 'features'> {
  definitions: RegistryDefinition[];
  info?: ServerInfo;
  store?: Store;
  origin: OriginPolicy;
  /** Mounted MCP servers: served after the definitions' own entries, with a `mount://status` resource. */
  mounts?: Mounts;
  limits?: RequestLimits;
  auth?: BearerAuth;
  bounds?: RequestBounds;
  requestLog?: boolean;
  healthTimeoutMs?: number;
  calls?: CallSlots;
  startup?: StartupReport;
  /** How long tasks live and how their instances beat (TASK_* variables); the defaults when absent. */
  tasks?: Partial<TaskSettings>;
  /** Count requests for the usage page (USAGE_COUNTERS); `trustForwarded` as for the rate limits. Off when absent. */
  usage?: { trustForwarded: boolean };
}

export function createApp(options: AppOptions): App {
  const { mounts } = options;
  const definitions = mounts ? [...options.definitions, mountStatusDefinitions(mounts)] : options.definitions;
  const sources = mounts ? [...(options.sources ?? []), mounts] : options.sources;
  const skills = servedSkills(definitions);
  const registry = createRegistry(...definitions, skills.files);
  // A name under a mount's prefix would hide (or be hidden by) the mount's own: refused now, and what the
  // mount publishes under a taken name is left out when it connects (mount://status says which).
  mounts?.reserve(registry);
  // The MCP core, with the features it is served with (docs/architecture.md "The floor").
  const features = [tasksFeature(options.tasks), skills.feature, paymentsFeature];
  const server = createServer({ ...options, sources, info: options.info ?? SERVER_INFO, registry, features });
  const dispatch = createDispatcher(server);
  const store = options.store ?? new MemoryStore();
  return {
    dispatch,
    kept: createKeptReplies(server),
    store,
    sessions: createSessions(server.keyring),
    origin: options.origin,
    connectInProcess: (principal, limits) => new InProcessTransport({ dispatch, store, principal, limitTool: limits?.limitTool }),
    mounts,
    limits: options.limits,
    auth: options.auth,
    bounds: options.bounds,
    requestLog: options.requestLog,
    healthTimeoutMs: options.healthTimeoutMs,
    calls: options.calls,
    startup: options.startup,
    ...(options.usage ? { usage: createUsageCounter({ store, keyring: server.keyring, trustForwarded: options.usage.trustForwarded }) } : {}),
  };
}

/** What a deployment adds in code (tools/index.ts, docs/tools.md), next to what the environment configures. */
export type DefaultAppOptions = Additions;

/** What the deployment serves: the agents configured in the environment (docs/agents.md "Agents") and its additions. */
export function defaultDefinitions(
  env: Record<string, string | undefined> = process.env,
  options: AgentOptions & DefaultAppOptions = {},
): RegistryDefinition[] {
  const agents = { ...agentDefinitions(env, options.agents ?? [], options), origin: AGENT_ORIGIN };
  const pay = readPayConfig(env);
  const engine = pay && createPaymentEngine(pay);
  // docs/payments.md "Paid calls (x402)": with X402_PAY_TO set, the agent tool is behind x402.
  // A deployment's own skills list before the agents' (docs/skills.md).
  const ownSkills = options.skills?.length ? [{ origin: ADDITIONS_ORIGIN, skills: options.skills }] : [];
  const chatOffer = pay && { price: pay.price, tokens: pay.tokens };
  const paidAgents = chatOffer && engine && withPaidTool(agents, 'chat_with_agent', engine, chatOffer, agentOffers(readAgents(env, options.agents ?? []), chatOffer));
  return [...ownSkills, paidAgents || agents, additionDefinitions(options, engine)];
}

/**
 * The deployment's app from the environment (docs/configuration.md "Configuration") with its additions, tools/index.ts unless
 * `options` are given. Every setting is read before anything is logged, so a configuration error (a TypeError
 * naming the variable, or both holders of a name defined twice) is the only thing a bad start prints.
 */
export function createDefaultApp(env: Record<string, string | undefined> = process.env, options: DefaultAppOptions = additions): App {
  const config = readConfig(env);
  const upstash = readUpstashConfig(env);
  const bounds = readRequestBounds(env);
  const requestLog = readLogLevel(env) !== 'off';
  const usage = readUsageCounting(env) ? { trustForwarded: trustsForwardedAddress(env) } : undefined;
  const healthTimeoutMs = readHealthTimeout(env);
  const tasks = readTaskSettings(env);
  const signIn = readSignIn(env);
  const ownRates = new Map(signIn.flatMap((mode) => [...(mode.rates ?? [])]));
  const ownTokens = new Map(signIn.flatMap((mode) => [...(mode.tokens ?? [])]));
  const agentList = readAgents(env, options.agents ?? []);
  const limits = createLimitsFromEnv(env, upstash, { ownRates, ownTokens, agentTokens: agentTokenBudgets(agentList) });
  // On Vercel the edge sets the client's address in headers; elsewhere only the socket's can be trusted.
  const calls = readCallSlots(env);
  for (const mode of signIn) mode.checkServed?.(config, env);
  const auth = signIn.length ? createBearerAuth(signIn, env) : undefined;
  const defaultScopes = auth ? readAuthScopes(env) : undefined;
  const pay = readPayConfig(env);
  // The demo agent reaches the app it belongs to, which exists once createApp returns. It lists as a caller
  // holding the deployment's default scopes would see the tools, no more.
  let app: App | undefined;
  const demoPrincipal: Principal = { subject: 'agent:demo', scopes: defaultScopes ?? [] };
  const listTools = () => listToolsInProcess(app!.connectInProcess(demoPrincipal));
  const definitions = defaultDefinitions(env, { ...options, listTools, connect: (principal, limits) => app!.connectInProcess(principal, limits) });
  const mounts = mountsFromEnv(env);
  const { store, summary } = selectStore(upstash, env);

  if (config.stateSecret === undefined && !config.local) {
    console.warn('[agent-mcp] MCP_STATE_SECRET is not set: MRTR requestState only verifies on this instance.');
  }
  // Said by whoever starts the app, once it serves: npm start under its "ready" line, a function as one JSON line.
  const startup = describeStartup({
    env,
    config,
    agents: agentList,
    sharedStoreHost: upstash && new URL(upstash.url).host,
    auth: auth && describeAuth(auth),
    rateLimits: limits?.rates,
    maxConcurrentCalls: calls.max,
    mounts: mounts?.status().map((m) => m.name) ?? [],
    payment: pay,
    details: [
      `auth: ${describeAuth(auth)}`,
      summary,
      ...(limits ? [limits.summary] : []),
      describeRequestBounds(bounds),
      describeTaskSettings(tasks),
      `concurrent calls: at most ${calls.max} per caller on each instance (MCP_MAX_CONCURRENT_CALLS)`,
      `calls in flight: at most ${calls.perInstance} on each instance, all callers together (MCP_MAX_CALLS_PER_INSTANCE)`,
      ...(pay ? [`paid calls: chat_with_agent costs ${pay.price} on ${pay.network}${pay.tokens ? `, or by use at ${pay.tokens.input}/${pay.tokens.output} per million input/output tokens up to ${pay.tokens.max}` : ''}, paid to ${pay.payTo} (facilitator ${pay.facilitatorUrl})`] : []),
    ],
  });
  return app = createApp({
    definitions,
    mounts,
    store,
    limits,
    auth,
    bounds,
    requestLog,
    healthTimeoutMs,
    calls,
    startup,
    tasks,
    usage,
    defaultScopes,
    instructions: INSTRUCTIONS,
    stateSecret: config.stateSecret,
    origin: originPolicyOf(config),
  });
}
