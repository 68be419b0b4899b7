/**
 * Token budgets' machinery (tokens.ts createTokenBudgets and its counters, token-counter.ts), loaded with the first
 * chat call of a deployment that sets a budget (index.ts): one that sets none never loads it at start (docs/architecture.md
 * rule 11). Reading the settings stays in the start-up code, so a bad value still stops start-up. The bundle makes
 * this module's `import()` a chunk of its own (scripts/lazy-features.mjs).
 */

import type { UpstashConfig } from '../store/upstash-config.js';
import type { FailurePolicy } from './check.js';
import { createMemoryTokenCounter, createUpstashTokenCounter } from './token-counter.js';
import { createTokenBudgets, type TokenSettings } from './tokens.js';

export type TokenBudgets = ReturnType<typeof createTokenBudgets>;

/** Where budgets are counted: Upstash (every instance against one total) under `prefix`, else this instance's memory. */
export interface TokenCounting {
  upstash?: UpstashConfig;
  prefix: string;
  timeoutMs: number;
}

export function tokenBudgetsOf(settings: TokenSettings, policy: FailurePolicy, { upstash, prefix, timeoutMs }: TokenCounting): TokenBudgets {
  return createTokenBudgets(settings, upstash ? createUpstashTokenCounter(upstash, { prefix, timeoutMs }) : createMemoryTokenCounter(), policy);
}
