/**
 * The endpoint's rate limits from the environment (docs/rate-limits.md "Rate limits"): `RATE_LIMIT_IP` is checked before
 * auth, `RATE_LIMIT_PRINCIPAL` right after it (or an API key's own `rate=`, MCP_API_KEYS), `RATE_LIMIT_TOOLS` (limits
 * per tool, tools.ts) as a tool is called, `RATE_LIMIT_ON_ERROR` (`open` | `closed`) decides what a
 * Redis fault does, `RATE_LIMIT_TIMEOUT_MS` how long a check waits for Redis. Each message counts:
 * a legacy batch is charged for its further messages once it is parsed, and a chat call for each nested agent turn
 * it runs (`chargeFor`). With Upstash configured every instance shares one budget; without it each instance
 * counts in memory. All of it is resolved once at start-up; a limit that is off adds no step at all.
 */

import { integerEnv } from '../config.js';
import type { Caller } from '../server/caller.js';
import type { ChargeCaller, LimitTool, Principal, TokenBudget } from '../server/context.js';
import { principalKey } from '../server/principal-key.js';
import { DEFAULT_PREFIX, type UpstashConfig } from '../store/upstash-config.js';
import { clientIp, createLimitCharge, createLimitCheck, createLimitCount, type FailurePolicy, type LimitCount, trustsForwardedAddress } from './check.js';
import { createMemoryLimiter } from './memory.js';
import { parseRate, type Rate } from './rate.js';
import type { LimitScope } from './refusals.js';
import { createToolLimit, describeToolRates, readToolRates } from './tools.js';
import { createUpstashLimiter, LIMIT_TIMEOUT_MS } from './upstash.js';
import type { TokenBudgets } from './token-budgets.js';
import { describeTokenSettings, readTokenSettings } from './tokens.js';

type Env = Record<string, string | undefined>;

export interface RequestLimits {
  /** The per-IP step (before auth), `cost` requests (default 1); absent when RATE_LIMIT_IP is off. */
  byIp?: (request: Request, cost?: number) => Promise<Response | undefined>;
  /** The per-principal step (after auth), `cost` requests (default 1); absent when RATE_LIMIT_PRINCIPAL is off. */
  byPrincipal?: (principal: Principal, cost?: number) => Promise<Response | undefined>;
  /**
   * Charges a request's caller (its address, then its principal, as the steps do) for work the request sets off
   * beyond itself: each nested agent turn of a chat call counts as one more request.
   */
  chargeFor(caller: Caller): ChargeCaller;
  /** The per-tool limits (RATE_LIMIT_TOOLS) of a request's caller: its principal's, else its address's; absent when none is set. */
  limitToolFor?(caller: Caller): LimitTool;
  /** The token budgets (tokens.ts) of a request's caller: its principal's, else its address's; absent when none is set. */
  tokensFor?(caller: Caller): TokenBudget;
  /** One line for the start-up log (MCP_LOG=debug). */
  summary: string;
  /** The limits alone, for the start-up summary: `ip 60/1m, principal off`. */
  rates: string;
}

export interface LimitsOptions {
  /** Key namespace in Redis (default `agent-mcp:`), followed by `rl:<scope>`. */
  prefix?: string;
  /**
   * Principals with a rate of their own (an API key's `rate=`, MCP_API_KEYS), by principalKey: checked and charged
   * instead of RATE_LIMIT_PRINCIPAL, even when that is off.
   */
  ownRates?: ReadonlyMap<string, Rate>;
  /** An API key's own token budget (`tokens=`, MCP_API_KEYS), by subject: instead of TOKEN_BUDGET_CALLER. */
  ownTokens?: ReadonlyMap<string, Rate>;
  /** Agents' own token budgets per caller (`tokenBudget`), by agent id. */
  agentTokens?: ReadonlyMap<string, Rate>;
}

export function readFailurePolicy(env: Env): FailurePolicy {
  const value = env.RATE_LIMIT_ON_ERROR?.trim().toLowerCase() || 'open';
  if (value !== 'open' && value !== 'closed') {
    throw new TypeError(`RATE_LIMIT_ON_ERROR must be open or closed, got "${env.RATE_LIMIT_ON_ERROR}".`);
  }
  return value;
}

const readTimeout = (env: Env) => integerEnv(env, 'RATE_LIMIT_TIMEOUT_MS', LIMIT_TIMEOUT_MS, 1, 'a positive integer of milliseconds');

/** One limit as the request path's step and as a charge for the work a request sets off. */
function limitOf(scope: LimitScope, rate: Rate, count: LimitCount) {
  return { check: createLimitCheck(scope, rate, count), charge: createLimitCharge(scope, rate, count) };
}

/**
 * Token budgets whose code loads with the first chat call that spends one (token-budgets.ts), once per instance, so
 * every call counts on the same counter; a load that failed is tried again by the next call.
 */
function loadedOnFirstCall(load: () => Promise<TokenBudgets>): TokenBudgets {
  let loaded: Promise<TokenBudgets> | undefined;
  return (caller) => async (agentId, meter) => {
    const budgets = await (loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    }));
    return budgets(caller)(agentId, meter);
  };
}

/** The limits configured in `env`, on Upstash when `upstash` is given; undefined when both are off. */
export function createLimitsFromEnv(env: Env, upstash: UpstashConfig | undefined, options: LimitsOptions = {}): RequestLimits | undefined {
  const ip = parseRate('RATE_LIMIT_IP', env.RATE_LIMIT_IP);
  const principal = parseRate('RATE_LIMIT_PRINCIPAL', env.RATE_LIMIT_PRINCIPAL);
  const policy = readFailurePolicy(env);
  const timeoutMs = readTimeout(env);
  const ownRates = options.ownRates ?? new Map<string, Rate>();
  const toolRates = readToolRates(env);
  const tokens = readTokenSettings(env, options.ownTokens, options.agentTokens);
  if (!ip && !principal && ownRates.size === 0 && toolRates.length === 0 && !tokens) return undefined;
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  // One counter per rate, its own key space (`rl:<space>`, e.g. `rl:key:<rate>`) so that no two windows share a
  // Redis key; per-tool limits share `rl:tool`, each caller's key naming its pattern (caller.ts Caller.toolLimitKey).
  const counter = (scope: LimitScope | 'tool', rate: Rate, { space = scope, label = scope }: { space?: string; label?: string } = {}) =>
    createLimitCount(label, upstash
      ? createUpstashLimiter(rate, upstash, { prefix: `${prefix}rl:${space}`, timeoutMs })
      : createMemoryLimiter(rate), policy);
  const trustForwarded = trustsForwardedAddress(env);
  const ipCount = ip && counter('ip', ip);
  const byIp = ipCount && createLimitCheck('ip', ip, ipCount);
  const chargeIp = ipCount && createLimitCharge('ip', ip, ipCount);
  const principalLimit = principal && limitOf('principal', principal, counter('principal', principal));
  const perRate = new Map<string, ReturnType<typeof limitOf>>();
  for (const rate of ownRates.values()) {
    if (!perRate.has(rate.text)) perRate.set(rate.text, limitOf('key', rate, counter('key', rate, { space: `key:${rate.text}` })));
  }
  /** The limit that counts `p`'s requests: its own rate, else RATE_LIMIT_PRINCIPAL, else none. */
  const limitFor = (p: Pick<Principal, 'kind' | 'subject'>) => {
    const own = ownRates.get(principalKey(p));
    return own ? perRate.get(own.text) : principalLimit;
  };
  const toolCounts = toolRates.map((r) => ({ ...r, count: counter('tool', r.rate, { label: `tool "${r.pattern}"` }) }));
  const where = upstash ? 'shared on Upstash' : 'counted per instance in memory';
  const tokenBudgets = tokens && loadedOnFirstCall(() => import('./token-budgets.js')
    .then(({ tokenBudgetsOf }) => tokenBudgetsOf(tokens, policy, { upstash, prefix: `${prefix}tb:`, timeoutMs })));
  const tokenText = tokens ? `, tokens ${describeTokenSettings(tokens)}` : '';
  const own = ownRates.size ? `, their own for ${ownRates.size} API key name${ownRates.size === 1 ? '' : 's'} (MCP_API_KEYS)` : '';
  return {
    ...(byIp ? { byIp: (request: Request, cost?: number) => byIp(clientIp(request, trustForwarded), cost) } : {}),
    ...(principalLimit || perRate.size ? { byPrincipal: async (p: Principal, cost?: number) => limitFor(p)?.check(principalKey(p), cost) } : {}),
    chargeFor(caller) {
      const p = caller.principal;
      return async (cost) => {
        const overIp = chargeIp && (await chargeIp(caller.address ?? 'unknown', cost));
        if (overIp) return overIp;
        return p ? limitFor(p)?.charge(principalKey(p), cost) : undefined;
      };
    },
    ...(toolCounts.length > 0
      ? { limitToolFor: (caller: Caller) => createToolLimit(toolCounts, caller) }
      : {}),
    ...(tokenBudgets ? { tokensFor: tokenBudgets } : {}),
    rates: `ip ${ip?.text ?? 'off'}, principal ${principal?.text ?? 'off'}${own}`
      + `${toolCounts.length > 0 ? `, tools ${describeToolRates(toolCounts)}` : ''}${tokenText}`,
    summary: `rate limits: ip ${ip?.text ?? 'off'}, principal ${principal?.text ?? 'off'}${own}`
      + `${toolCounts.length > 0 ? `, tools ${describeToolRates(toolCounts)}` : ''}${tokenText} (${where}; on a Redis fault: fail ${policy})`,
  };
}
