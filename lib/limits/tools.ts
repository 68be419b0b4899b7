/**
 * Limits per tool (docs/rate-limits.md "Limits per tool"): `RATE_LIMIT_TOOLS` is a JSON object of tool-name patterns
 * and rates, `{"chat_with_agent":"10/1m","research.*":"30/1h"}`. Each pattern is one budget per caller (the verified
 * principal, else the address), shared by the tools it matches; a call spends from every pattern its tool matches,
 * in the order written, and the first refusal answers. Counted where the endpoint's limits count (Upstash for every
 * instance, else this instance's memory), before the tool runs and after its arguments are checked.
 */

import { patternProblem, toRegExp, AGENT_TOOL_PREFIX } from '../agent/tool-patterns.js';
import type { Caller } from '../server/caller.js';
import type { LimitTool } from '../server/context.js';
import type { LimitCount } from './check.js';
import { parseRate, type Rate } from './rate.js';
import { overToolLimit, toolLimitUnavailable } from './refusals.js';

type Env = Record<string, string | undefined>;

const VARIABLE = 'RATE_LIMIT_TOOLS';
/** Each matching pattern is a store round trip on the call's path: a few are a policy, hundreds a mistake. */
export const MAX_TOOL_PATTERNS = 32;

export interface ToolRate {
  pattern: string;
  rate: Rate;
  matches(name: string): boolean;
}

/** The limits `RATE_LIMIT_TOOLS` sets, in the order written; none when it is unset, empty or `off`. */
export function readToolRates(env: Env): ToolRate[] {
  const text = env[VARIABLE]?.trim();
  if (!text || text.toLowerCase() === 'off') return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TypeError(`${VARIABLE} must be a JSON object of tool-name patterns and rates, e.g. {"chat_with_agent":"10/1m"}; it is not valid JSON.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${VARIABLE} must be a JSON object of tool-name patterns and rates, e.g. {"chat_with_agent":"10/1m"}.`);
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_TOOL_PATTERNS) throw new TypeError(`${VARIABLE} names ${entries.length} patterns; at most ${MAX_TOOL_PATTERNS} are allowed.`);
  return entries.flatMap(([pattern, setting]) => {
    // An agent an agent asks (`agent:<id>`) is no MCP tool: its turns count against RATE_LIMIT_IP/PRINCIPAL.
    const problem = pattern.startsWith(AGENT_TOOL_PREFIX) ? 'names an agent, not a tool' : patternProblem(pattern);
    if (problem) throw new TypeError(`${VARIABLE}: "${pattern}" ${problem}.`);
    const rate = parseRate(`${VARIABLE} "${pattern}"`, typeof setting === 'string' ? setting : JSON.stringify(setting));
    if (!rate) return [];
    const expression = toRegExp(pattern);
    return [{ pattern, rate, matches: (name: string) => expression.test(name) }];
  });
}

/** `{chat_with_agent 10/1m, research.* 30/1h}` for the start-up line. */
export function describeToolRates(rates: readonly ToolRate[]): string {
  return rates.map((r) => `${r.pattern} ${r.rate.text}`).join(', ');
}

/** The per-tool limits of one caller: each call of a tool spends from every limit its name matches. */
export function createToolLimit(rates: ReadonlyArray<ToolRate & { count: LimitCount }>, caller: Caller): LimitTool {
  const scope = caller.principal ? 'principal' : 'ip';
  return async (name) => {
    for (const { pattern, rate, matches, count } of rates) {
      if (!matches(name)) continue;
      const refusal = await count(caller.toolLimitKey(pattern));
      if (refusal) return refusal.kind === 'denied' ? overToolLimit(pattern, scope, rate, refusal.reset) : toolLimitUnavailable();
    }
    return undefined;
  };
}
