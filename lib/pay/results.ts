/**
 * The tool results of x402 over MCP (reference §A5): payment required is an `isError` result with the
 * PaymentRequired object in `structuredContent` and as JSON text; a settlement failure is the same, with the
 * failed receipt beside it and the tool's output withheld; an unreachable facilitator is a plain error saying
 * nothing was charged (it carries no PaymentRequired, so clients do not sign a payment that cannot be checked).
 */

import type { ResourceInfo, SettleResponse } from '@x402/core/types';
import type { ToolResult } from '../server/registry.js';
import type { PaymentEngine } from './engine.js';
import { PAYMENT_RESPONSE_META_KEY } from './payload.js';
import type { Offer } from './price.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function jsonResult(value: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: true };
}

export function facilitatorUnavailable(engine: PaymentEngine, reason: string): ToolResult {
  const host = new URL(engine.config.facilitatorUrl).host;
  return {
    content: [{
      type: 'text',
      text: `Payment could not be processed: the x402 facilitator (${host}) could not be reached (${reason}). Nothing was charged; try again later.`,
    }],
    isError: true,
  };
}

/**
 * The tool ran but its payment could not be recorded (the store is full or down), so it was not settled: a
 * settled payment must be answerable when the client replays it. Plain, like an unreachable facilitator.
 */
export function recordUnavailable(): ToolResult {
  return {
    content: [{ type: 'text', text: 'Payment could not be processed: the server could not record it, so it was not settled. Nothing was charged; try again later.' }],
    isError: true,
  };
}

/** The call was cancelled after its tool answered and before its payment was settled: nothing was settled. */
export function cancelledUnpaid(): ToolResult {
  return {
    content: [{ type: 'text', text: 'The call was cancelled before its payment was settled, so its result was withheld. Nothing was charged.' }],
    isError: true,
  };
}

/** PaymentRequired at `offer`, with `error` saying why (missing, refused, already used). */
export async function paymentRequired(engine: PaymentEngine, resource: ResourceInfo, error: string, offer: Offer): Promise<ToolResult> {
  try {
    return jsonResult(await engine.paymentRequired(resource, error, offer) as unknown as Record<string, unknown>);
  } catch (cause) {
    return facilitatorUnavailable(engine, messageOf(cause));
  }
}

/** After the tool ran, settlement failed: the output is withheld (reference §A5 rule 7). */
export async function settlementFailed(
  engine: PaymentEngine,
  resource: ResourceInfo,
  reason: string,
  offer: Offer,
  receipt?: SettleResponse,
): Promise<ToolResult> {
  const required = await paymentRequired(engine, resource, `Payment settlement failed: ${reason}`, offer);
  if (!required.structuredContent) return required;
  const failure = receipt ?? { success: false, errorReason: reason, transaction: '', network: engine.config.network };
  return jsonResult({ ...(required.structuredContent as Record<string, unknown>), [PAYMENT_RESPONSE_META_KEY]: failure });
}
