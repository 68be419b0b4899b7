/**
 * Which x402 binding answers a request, chosen per request (x402 `specs/transports-v2/mcp.md` "Binding Selection"):
 * - a 2026-07-28 request that declares `org.x402/payment` in its client capabilities gets the extension binding: a
 *   result of type `payment_required` with the PaymentRequired in `paymentRequired` (and a failed settlement's
 *   receipt in `_meta["x402/payment-response"]`), on tools/call, resources/read and prompts/get alike;
 * - any other request (every 2025-era one) gets the tool-result binding on tools/call: an `isError` result with the
 *   PaymentRequired in `structuredContent` and as JSON text ("MUST NOT return payment_required unless the request
 *   advertises org.x402/payment"). That binding has no form for a read or a get, so they answer with a JSON-RPC error
 *   PAYMENT_REQUIRED (402, @x402/mcp's code) with the PaymentRequired in `data`.
 * Paid requests and receipts use the same `_meta` keys on both.
 */

import { declaresExtension } from '../protocol/client-capabilities.js';
import { INTERNAL_ERROR, McpError, PAYMENT_REQUIRED } from '../protocol/errors.js';
import type { RequestContext } from '../server/context.js';
import type { OtherResult, ToolResult } from '../server/registry.js';
import { PAYMENT_RESPONSE_META_KEY, RESULT_TYPE_PAYMENT_REQUIRED, X402_EXTENSION } from './payload.js';
import type { Paywalled, StillRequired } from './paywall.js';

/** True when the request takes the extension binding. */
export const usesExtension = (ctx: Pick<RequestContext, 'era' | 'clientCapabilities'>): boolean =>
  ctx.era === 'modern' && declaresExtension(ctx.clientCapabilities, X402_EXTENSION);

/** The extension binding's `payment_required` result. */
export function paymentRequiredResult({ paymentRequired, receipt }: StillRequired): OtherResult {
  return {
    resultType: RESULT_TYPE_PAYMENT_REQUIRED,
    paymentRequired,
    ...(receipt ? { _meta: { [PAYMENT_RESPONSE_META_KEY]: receipt } } : {}),
  };
}

/** The PaymentRequired as the tool-result binding's `structuredContent` (and a JSON-RPC error's `data`): a failed receipt beside it. */
function requiredData({ paymentRequired, receipt }: StillRequired): Record<string, unknown> {
  return { ...paymentRequired, ...(receipt ? { [PAYMENT_RESPONSE_META_KEY]: receipt } : {}) };
}

/** A paid tool's answer on the binding its request chose. */
export function toolAnswer<Answer>(paid: Paywalled<Answer>, ctx: RequestContext): Answer | ToolResult | OtherResult {
  if (paid.kind === 'answer') return paid.answer;
  if (paid.kind === 'refused') return { content: [{ type: 'text', text: paid.text }], isError: true };
  if (usesExtension(ctx)) return paymentRequiredResult(paid);
  const value = requiredData(paid);
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: true };
}

/** A paid read's or get's answer on the binding its request chose: the extension's result, or a JSON-RPC error. */
export function entryAnswer<Answer>(paid: Paywalled<Answer>, ctx: RequestContext): Answer | OtherResult {
  if (paid.kind === 'answer') return paid.answer;
  if (paid.kind === 'refused') throw new McpError(INTERNAL_ERROR, paid.text);
  if (usesExtension(ctx)) return paymentRequiredResult(paid);
  throw new McpError(PAYMENT_REQUIRED, paid.paymentRequired.error ?? 'Payment required', requiredData(paid));
}
