/**
 * Where a payment travels in an MCP request (reference §0.2, §A5): `params._meta["x402/payment"]` holding
 * the PaymentPayload object (the spec and @x402/mcp) or a base64 string of it (Cloudflare agents), and
 * `params._meta["x402.payment"]` (x402-mcp). Only the shape is checked here; the facilitator checks the rest.
 */

import type { PaymentPayload } from '@x402/core/types';

export const PAYMENT_META_KEY = 'x402/payment';
export const PAYMENT_META_KEY_DOTTED = 'x402.payment';
export const PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';

export type PaymentInput =
  | { kind: 'none' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'payload'; payload: PaymentPayload };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function decodeBase64Json(text: string): unknown {
  try {
    const bytes = Uint8Array.from(atob(text.trim()), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** The payment in a request's `_meta`, if any. */
export function readPayment(meta: Record<string, unknown>): PaymentInput {
  const raw = meta[PAYMENT_META_KEY] ?? meta[PAYMENT_META_KEY_DOTTED];
  if (raw === undefined || raw === null) return { kind: 'none' };
  const value = typeof raw === 'string' ? decodeBase64Json(raw) : raw;
  if (!isObject(value)) return { kind: 'invalid', reason: 'invalid_payload: the payment is neither a JSON object nor base64 JSON' };
  if (value.x402Version !== 2) return { kind: 'invalid', reason: 'invalid_x402_version: only x402 version 2 payments are accepted' };
  if (!isObject(value.payload) || !isObject(value.accepted)) {
    return { kind: 'invalid', reason: 'invalid_payload: a version 2 payment has `accepted` and `payload` objects' };
  }
  return { kind: 'payload', payload: value as unknown as PaymentPayload };
}
