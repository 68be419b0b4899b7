/**
 * What start-up says about a deployment: a few short lines of what is on (agents, store, auth, origins, limits,
 * mounts, payments), and for MCP_LOG=debug every setting and bound with the variable that sets it. `npm start`
 * prints them under its "ready" line (scripts/serve.ts); a function elsewhere (Vercel) logs them as one JSON line
 * at its cold start, so that its log stays JSON lines like the request log.
 */

import type { Agent } from '../agent/types.js';
import type { Config } from '../config.js';
import { isoTime } from './request-log.js';

type Env = Record<string, string | undefined>;

export interface StartupReport {
  /** A label and one short phrase each, in the order they are printed. */
  summary: Array<[label: string, text: string]>;
  /** The long lines for MCP_LOG=debug, each naming its variables. */
  details: string[];
}

export interface StartupFacts {
  env: Env;
  config: Config;
  agents: Agent[];
  /** Upstash's host when the store is shared; absent for the memory store. */
  sharedStoreHost?: string;
  /** What a caller must send (lib/auth describeAuth); absent when anyone may call. */
  auth?: string;
  /** `ip 60/1m, principal off`, when a rate limit is on. */
  rateLimits?: string;
  maxConcurrentCalls: number;
  mounts: string[];
  payment?: { price: string; network: string; payTo: string };
  details: string[];
}

/** A URL without user info or query, which may hold credentials. */
function withoutSecrets(url: string): string {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}

/** The agents `chat_with_agent` serves, as configured (lib/agent/config.ts). */
function describeAgents(agents: Agent[], env: Env): string {
  const profiles = agents.map((a) => a.profile);
  if (profiles.length === 1 && profiles[0]!.id === 'demo' && profiles[0]!.kind === 'in-process') {
    return 'demo (the offline demo agent, which echoes; set AGENT_URL or AGENTS for yours)';
  }
  return profiles.map((a) => `${a.id} (${a.kind}${a.id === 'default' && env.AGENT_URL ? ` at ${withoutSecrets(env.AGENT_URL)}` : ''})`).join(', ');
}

/** Which browser origins and hosts are served (lib/http/origin.ts). */
function describeOrigins(config: Config): string {
  const extra = config.allowedOrigins.length ? ` + ${config.allowedOrigins.join(', ')}` : '';
  if (config.local) return `loopback only (localhost, 127.0.0.1, [::1])${extra}`;
  const own = config.publicUrl ?? 'the origin each request reaches (VERCEL is set)';
  return `any host; browser origins: ${own}${extra}`;
}

export function describeStartup(facts: StartupFacts): StartupReport {
  const { env, config } = facts;
  const summary: StartupReport['summary'] = [
    ['agents', describeAgents(facts.agents, env)],
    ['store', facts.sharedStoreHost
      ? `Upstash at ${facts.sharedStoreHost}, shared by every instance`
      : 'memory, this process only (set UPSTASH_REDIS_REST_URL to share state across instances)'],
    ['auth', facts.auth ?? 'none: whoever reaches the URL may call (docs/oauth.md: AUTH_ISSUER, AUTH_SERVER_KEY, MCP_API_KEYS)'],
    ['origins', describeOrigins(config)],
    ['limits', `${facts.rateLimits ? `rate limits ${facts.rateLimits}` : 'no rate limits (RATE_LIMIT_IP, RATE_LIMIT_PRINCIPAL)'}; `
      + `${facts.maxConcurrentCalls} concurrent calls per caller`],
  ];
  if (config.publicUrl) summary.unshift(['public', `${config.publicUrl}/mcp`]);
  if (facts.mounts.length) summary.push(['mounts', `${facts.mounts.join(', ')} (mount://status says how each is)`]);
  if (facts.payment) summary.push(['payments', `chat_with_agent costs ${facts.payment.price} on ${facts.payment.network}, paid to ${facts.payment.payTo}`]);
  return { summary, details: facts.details };
}

/** `npm start`'s lines under "ready": the summary aligned, then the details or where to find them. */
export function formatStartup(report: StartupReport, debug: boolean): string[] {
  const width = Math.max(...report.summary.map(([label]) => label.length));
  const lines = report.summary.map(([label, text]) => `  ${label.padEnd(width)}  ${text}`);
  return debug ? [...lines, ...report.details.map((line) => `  ${line}`)] : [...lines, '  (MCP_LOG=debug prints every setting and bound)'];
}

/** A function's cold start: the summary as one JSON line, with the details under MCP_LOG=debug. */
export function startupLogLine(report: StartupReport, debug: boolean): string {
  return JSON.stringify({
    time: isoTime(Date.now()), // not toISOString, whose first call costs a cold start ~0.3 ms
    msg: 'agent-mcp start',
    ...Object.fromEntries(report.summary),
    ...(debug ? { details: report.details } : {}),
  });
}
