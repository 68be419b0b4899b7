/**
 * What the usage page shows for one window (issue 46): written by lib/usage/read.ts readUsage, rendered by the page
 * and served as its JSON. Shared by the counters (H17) and the page (H18).
 */
export type UsageWindow = 'hour' | 'day' | 'month'; // last 60 min (1-min buckets), last 24 h (1-h buckets), last 30 days (1-day buckets)

export interface UsageTotals {
  calls: number;            // tools/call that ran (a refused call is a refusal, not a call)
  errors: number;           // of those calls, the ones answered with isError or a JSON-RPC error, by us or the agent
  refusals: number;         // requests refused before running, any method (sum of `refusals` below)
  inputTokens: number;      // known tokens only
  outputTokens: number;
  unknownUsageCalls: number; // calls with at least one model request whose usage is unknown: the totals are incomplete
  earnedUsd: string;        // x402 settled, decimal string ("0.0125"); "0" when no price configured
}

export interface UsageView {
  window: UsageWindow;
  from: string; to: string;       // ISO 8601
  bucketSeconds: number;
  generatedAt: string;
  totals: UsageTotals;
  /** per agent (tool name for non-agent tools), one point per bucket, oldest first, all buckets present (zeros) */
  series: Array<{ agent: string; points: Array<{ t: string; calls: number; inputTokens: number; outputTokens: number }> }>;
  /**
   * bounded (≤ 20), by tokens then calls; label is `<kind>:<subject>` for a principal (`api-key:<key name>`), or
   * `session:` / `ip:` + 8 hex of a MAC under the server's key (lib/usage/label.ts). Each class keeps its own bounded
   * ranking per bucket, so a flood in one class never pushes out another's callers.
   */
  topCallers: Array<{ label: string; kind: 'api-key' | 'issuer' | 'authorization-server' | 'session' | 'address' | string; calls: number; inputTokens: number; outputTokens: number }>;
  /** reason → count; reasons are lib/server/context.ts REFUSAL: 'rate-limit', 'token-budget', 'scope', 'payment', 'concurrency', 'instance-full', 'sign-in', ... */
  refusals: Record<string, number>;
  /** cause code → count (the codes the request log already writes) */
  errors: Record<string, number>;
  /** per agent, where a payment settled (x402); `usd` counted in millionths of a dollar */
  earnings: Array<{ agent: string; usd: string; paidCalls: number }>;
  /** true when the top-callers list dropped callers (bounded); the totals never drop anything */
  topCallersTruncated: boolean;
}
