/**
 * x402 as the MCP core sees it (lib/app.ts installs it): the `org.x402/payment` extension is declared in
 * server/discover's capabilities (x402 `specs/transports-v2/mcp.md` "Server Capability") when something the server
 * serves is paid. It exists on the 2026-07-28 wire only; 2025-era clients get the tool-result binding (binding.ts).
 */

import type { Feature, Served } from '../server/server.js';
import { X402_EXTENSION } from './payload.js';
import { PRICE_META_KEY } from './with-payment.js';

const paid = (entry: { _meta?: Record<string, unknown> }) => entry._meta?.[PRICE_META_KEY] !== undefined;

function servesPaid({ registry }: Served): boolean {
  return [...registry.tools.values()].some((tool) => paid(tool.definition))
    || [...registry.resources.values()].some(paid)
    || registry.templates.some((template) => paid(template.definition))
    || [...registry.prompts.values()].some(paid);
}

export const paymentsFeature: Feature = {
  declare: (served) => (servesPaid(served) ? { modern: { extensions: { [X402_EXTENSION]: {} } } } : undefined),
};
