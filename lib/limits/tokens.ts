/**
 * Token budgets (docs/rate-limits.md "Token budgets"): what a chat call's agents may spend, in the input and output
 * tokens their upstreams report (lib/usage/meter.ts), per window:
 * - per caller (TOKEN_BUDGET_CALLER; an API key's own `tokens=` in MCP_API_KEYS instead): the verified principal,
 *   else the address, as the rate limits count callers;
 * - per caller with one agent, where the agent sets `tokenBudget` (AGENTS, or an in-process agent's definition):
 *   charged with everything the call spends, the agents it asks included;
 * - the deployment's (TOKEN_BUDGET_DEPLOYMENT): one budget for every caller together, so no number of callers can
 *   spend more of the operator's model bill.
 * A call is checked before its agent runs and refused with when to try again while any of its budgets is spent; it
 * is charged as each model request's usage arrives, and once one is crossed it starts no further model request or
 * tool step. A request whose usage is unknown is charged nothing and said in the log (the meter says it is unknown).
 * Counted with the rate limits' sliding window, on Upstash for every instance, else in this instance's memory.
 */

import type { Caller } from '../server/caller.js';
import type { TokenBudget, TokenSpend, ChargeRefusal } from '../server/context.js';
import { principalKey } from '../server/principal-key.js';
import type { UsageMeter } from '../usage/meter.js';
import { createCountedWarning } from '../warn.js';
import type { FailurePolicy } from './check.js';
import { parseRate, type Rate } from './rate.js';
import { describeWindow } from './refusals.js';
import type { Spent, TokenCounter, TokenKey } from './token-counter.js';

type Env = Record<string, string | undefined>;

export const TOKEN_BUDGET_CALLER = 'TOKEN_BUDGET_CALLER';
export const TOKEN_BUDGET_DEPLOYMENT = 'TOKEN_BUDGET_DEPLOYMENT';
const SPENT = 'Token budget spent';
const UNAVAILABLE = 'the token budget cannot be checked';

export interface TokenSettings {
  caller?: Rate;
  deployment?: Rate;
  /** An API key's own budget (`tokens=`), by its principal's subject: instead of TOKEN_BUDGET_CALLER. */
  own: ReadonlyMap<string, Rate>;
  /** An agent's `tokenBudget`, per caller, by agent id. */
  agents: ReadonlyMap<string, Rate>;
}

/** The budgets of `env` and of the keys and agents that set their own; undefined when none is set. */
export function readTokenSettings(env: Env, own: ReadonlyMap<string, Rate> = new Map(), agents: ReadonlyMap<string, Rate> = new Map()): TokenSettings | undefined {
  const caller = parseRate(TOKEN_BUDGET_CALLER, env[TOKEN_BUDGET_CALLER], 'tokens');
  const deployment = parseRate(TOKEN_BUDGET_DEPLOYMENT, env[TOKEN_BUDGET_DEPLOYMENT], 'tokens');
  if (!caller && !deployment && own.size === 0 && agents.size === 0) return undefined;
  return { ...(caller ? { caller } : {}), ...(deployment ? { deployment } : {}), own, agents };
}

/** `caller 100000/1d, deployment 5000000/1d, their own for 2 API key names, agents writer 20000/1d`. */
export function describeTokenSettings(settings: TokenSettings): string {
  const own = settings.own.size ? `, their own for ${settings.own.size} API key name${settings.own.size === 1 ? '' : 's'}` : '';
  const agents = settings.agents.size ? `, agents ${[...settings.agents].map(([id, rate]) => `${id} ${rate.text}`).join(', ')}` : '';
  return `caller ${settings.caller?.text ?? 'off'}, deployment ${settings.deployment?.text ?? 'off'}${own}${agents}`;
}

/** One budget a call spends: its counter and what its refusal says. */
interface Budget extends TokenKey {
  rate: Rate;
  variable: string;
  /** "this caller may spend 10000 tokens every day" */
  sentence: string;
}

/** Tokens counted against a budget at `now`: the previous window's, weighted by how much of it still overlaps, and the current's. */
function usedOf(spent: Spent, windowMs: number, now: number): number {
  return Math.floor(spent.previous * (1 - (now % windowMs) / windowMs)) + spent.current;
}

/** How long until a spent budget has room again, if nothing more is spent: within this window as the previous one's weight fades, else in the next. */
export function msUntilRoom(spent: Spent, rate: Rate, now: number): number {
  const { windowMs, limit } = rate;
  const elapsed = now % windowMs;
  const left = windowMs - elapsed;
  if (spent.current < limit && spent.previous > 0) {
    const within = windowMs * (1 - (limit - spent.current) / spent.previous) - elapsed;
    if (within < left) return Math.max(0, within);
  }
  return left + Math.max(0, windowMs * (1 - limit / Math.max(spent.current, 1)));
}

// Pure: the start file, which reads the settings only (token-budgets.ts), leaves them out.
const unknownUsage = /* @__PURE__ */ createCountedWarning((agent, count) =>
  `token budgets: ${count} model request(s) reported no usage and were charged nothing (latest: agent ${agent}); their calls' usage is unknown.`);
const refusedCalls = /* @__PURE__ */ createCountedWarning((variable, count) => `token budgets: refused ${count} chat call(s) over a spent token budget (latest: ${variable})`);
const crossedCalls = /* @__PURE__ */ createCountedWarning((variable, count) =>
  `token budgets: ${count} chat call(s) crossed a token budget mid-way and start no further model request (latest: ${variable})`);

/**
 * Token budgets over `counter`. `policy` (RATE_LIMIT_ON_ERROR) decides what a store fault does: `open` lets the call
 * go on uncharged, `closed` refuses a call that cannot be checked and stops one whose charge cannot be counted; either
 * way the fault is logged, at most once a minute.
 */
export function createTokenBudgets(settings: TokenSettings, counter: TokenCounter, policy: FailurePolicy, now: () => number = Date.now) {
  const action = policy === 'open' ? 'letting calls go on uncharged (RATE_LIMIT_ON_ERROR=open)' : 'refusing calls (RATE_LIMIT_ON_ERROR=closed)';
  const fault = createCountedWarning((reason, count) => `the token budgets could not be counted (${reason}); ${action}: ${count} count(s) failed since the last report.`);
  const budget = (rate: Rate, key: string, variable: string, sentence: string): Budget =>
    ({ key: `${rate.windowMs}:${key}`, windowMs: rate.windowMs, rate, variable, sentence: `${sentence} every ${describeWindow(rate.windowMs)}` });

  /** The budgets a call of `agentId` by this caller spends, in the order their refusals are preferred. */
  function budgetsOf(who: Caller, agentId: string): Budget[] {
    const list: Budget[] = [];
    const own = who.principal && settings.own.get(principalKey(who.principal));
    const caller = who.tokenBudgetKey();
    if (own) list.push(budget(own, caller, 'MCP_API_KEYS', `this API key may spend ${own.limit} tokens`));
    else if (settings.caller) list.push(budget(settings.caller, caller, TOKEN_BUDGET_CALLER, `this caller may spend ${settings.caller.limit} tokens`));
    const agent = settings.agents.get(agentId);
    if (agent) list.push(budget(agent, who.tokenBudgetKey(agentId), `tokenBudget of agent ${agentId}`, `this caller may spend ${agent.limit} tokens with agent ${agentId}`));
    if (settings.deployment) list.push(budget(settings.deployment, 'deployment', TOKEN_BUDGET_DEPLOYMENT, `this server may spend ${settings.deployment.limit} tokens for all its callers`));
    return list;
  }

  /** The spent budget whose room comes back last, with when; undefined when every budget has room. */
  function spentOf(budgets: Budget[], spent: Spent[], at: number): { budget: Budget; retryAfterSeconds: number } | undefined {
    let worst: { budget: Budget; ms: number } | undefined;
    budgets.forEach((b, i) => {
      if (usedOf(spent[i]!, b.windowMs, at) < b.rate.limit) return;
      const ms = msUntilRoom(spent[i]!, b.rate, at);
      if (!worst || ms > worst.ms) worst = { budget: b, ms };
    });
    return worst && { budget: worst.budget, retryAfterSeconds: Math.max(1, Math.ceil(worst.ms / 1000)) };
  }

  return (caller: Caller): TokenBudget => async (agentId, meter) => {
    const budgets = budgetsOf(caller, agentId);
    if (budgets.length === 0) return { spend: NOTHING_SPENT };
    const at = now();
    const checked = await counter.spend(budgets, 0, at);
    if (checked.kind === 'unavailable') {
      fault.note(checked.reason);
      if (policy === 'closed') return { refused: { message: `The call was not run: ${UNAVAILABLE}; try again shortly.`, retryAfterSeconds: 1 } };
    } else {
      const over = spentOf(budgets, checked.spent, at);
      if (over) {
        refusedCalls.note(over.budget.variable);
        return { refused: { message: `${SPENT}: ${over.budget.sentence} (${over.budget.variable}). Retry after ${over.retryAfterSeconds} s.`, retryAfterSeconds: over.retryAfterSeconds } };
      }
    }
    return { spend: new CallSpend(budgets, meter, agentId, { counter, policy, now, fault: fault.note, spentOf }) };
  };
}

const NOTHING_SPENT: TokenSpend = { stopped: undefined, settled: async () => undefined, end: async () => undefined };

interface Charging {
  counter: TokenCounter;
  policy: FailurePolicy;
  now: () => number;
  fault(reason: string): void;
  spentOf(budgets: Budget[], spent: Spent[], at: number): { budget: Budget; retryAfterSeconds: number } | undefined;
}

/** One call's charges, in the order its reports arrive: each is one count of all its budgets. */
class CallSpend implements TokenSpend {
  #stopped: ChargeRefusal | undefined;
  #pending: Promise<void> = Promise.resolve();
  readonly #off: () => void;

  constructor(readonly budgets: Budget[], meter: UsageMeter, agentId: string, readonly charging: Charging) {
    this.#off = meter.onRecord((delta) => {
      if (!delta.known) return unknownUsage.note(agentId);
      const cost = delta.input + delta.output;
      if (cost > 0) this.#pending = this.#pending.then(() => this.#charge(cost));
    });
  }

  get stopped(): ChargeRefusal | undefined {
    return this.#stopped;
  }

  settled(): Promise<void> {
    return this.#pending;
  }

  end(): Promise<void> {
    this.#off();
    return this.#pending;
  }

  async #charge(cost: number): Promise<void> {
    const { counter, policy, now, fault, spentOf } = this.charging;
    const at = now();
    const counted = await counter.spend(this.budgets, cost, at);
    if (counted.kind === 'unavailable') {
      fault(counted.reason);
      if (policy === 'closed') this.#stopped ??= { variable: 'RATE_LIMIT_ON_ERROR', reason: `${UNAVAILABLE} (RATE_LIMIT_ON_ERROR=closed); the turn was stopped.` };
      return;
    }
    const over = spentOf(this.budgets, counted.spent, at);
    if (over && !this.#stopped) {
      crossedCalls.note(over.budget.variable);
      this.#stopped = {
        variable: over.budget.variable,
        reason: `${SPENT}: ${over.budget.sentence} (${over.budget.variable}); the turn was stopped. Retry after ${over.retryAfterSeconds} s.`,
        retryAfterSeconds: over.retryAfterSeconds,
      };
    }
  }
}
