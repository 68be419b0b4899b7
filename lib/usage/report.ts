/**
 * How a call's usage is said to its caller: the tool result's `_meta` under USAGE_META (docs/agents.md "Usage"). A
 * `_meta` key of our own, so a reverse-DNS prefix that is not one of the reserved MCP ones (2025-06-18
 * basic/index.mdx "_meta": `modelcontextprotocol` and `mcp` as the second label are reserved).
 */

import type { UsageTotal } from './meter.js';

export const USAGE_META = 'dev.agent-mcp/usage';

/** The result's `_meta` entry: every count, and how many requests said nothing (their tokens are not in the counts). */
export interface UsageMeta {
  input: number;
  output: number;
  cachedInput: number;
  cacheWrite: number;
  modelRequests: number;
  unknownRequests: number;
  estimated: boolean;
}

/** The entry for `total`; undefined when no model request was made, so a call that ran no agent says nothing. */
export function usageMeta(total: UsageTotal): UsageMeta | undefined {
  if (total.modelRequests === 0) return undefined;
  const { input, output, cachedInput, cacheWrite, modelRequests, unknownRequests, estimated } = total;
  return { input, output, cachedInput, cacheWrite, modelRequests, unknownRequests, estimated };
}

/** Two calls' totals as one (a batch's messages, for the request's log line). */
export function addTotals(a: UsageTotal, b: UsageTotal): UsageTotal {
  return {
    modelRequests: a.modelRequests + b.modelRequests, unknownRequests: a.unknownRequests + b.unknownRequests, input: a.input + b.input,
    output: a.output + b.output, cachedInput: a.cachedInput + b.cachedInput, cacheWrite: a.cacheWrite + b.cacheWrite, estimated: a.estimated || b.estimated,
  };
}
