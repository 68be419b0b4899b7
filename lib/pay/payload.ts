/**
 * Where a payment travels in an MCP request (reference §0.2, §A1, §A5): `params._meta["x402/payment"]` holding
 * the PaymentPayload object (the spec and @x402/mcp) or a base64 string of it (Cloudflare agents),
 * `params._meta["x402.payment"]` (x402-mcp), or the HTTP headers x402 uses outside MCP: `X-PAYMENT` (v1, the
 * seed tutorial's) and `PAYMENT-SIGNATURE` (v2), base64 JSON (header.ts moves them into `_meta`). Payloads of
 * x402 v2 and v1 are accepted. Only the shape is checked here; the facilitator checks the rest.
 */

import type { PaymentPayload, PaymentPayloadV1 } from '@x402/core/types';

export const PAYMENT_META_KEY = 'x402/payment';
export const PAYMENT_META_KEY_DOTTED = 'x402.payment';
export const PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';

/** x402 v1's payment header (the seed tutorial's); v2 clients send `PAYMENT-SIGNATURE`. */
export const H_X_PAYMENT = 'x-payment';
export const H_PAYMENT_SIGNATURE = 'payment-signature';
export const PAYMENT_HEADERS = [H_X_PAYMENT, H_PAYMENT_SIGNATURE] as const;

/** A payment of either x402 version. */
export type AnyPaymentPayload = PaymentPayload | PaymentPayloadV1;

export type PaymentInput =
  | { kind: 'none' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'payload'; payload: AnyPaymentPayload };

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

/** A payment value as found (object or base64 JSON string), checked for the shape of its version. */
export function readPaymentValue(raw: unknown): PaymentInput {
  if (raw === undefined || raw === null) return { kind: 'none' };
  const value = typeof raw === 'string' ? decodeBase64Json(raw) : raw;
  if (!isObject(value)) return { kind: 'invalid', reason: 'invalid_payload: the payment is neither a JSON object nor base64 JSON' };
  if (value.x402Version === 2) {
    if (!isObject(value.payload) || !isObject(value.accepted)) {
      return { kind: 'invalid', reason: 'invalid_payload: a version 2 payment has `accepted` and `payload` objects' };
    }
    return { kind: 'payload', payload: value as unknown as PaymentPayload };
  }
  if (value.x402Version === 1) {
    if (!isObject(value.payload) || typeof value.scheme !== 'string' || typeof value.network !== 'string') {
      return { kind: 'invalid', reason: 'invalid_payload: a version 1 payment has `scheme`, `network` and a `payload` object' };
    }
    return { kind: 'payload', payload: value as unknown as PaymentPayloadV1 };
  }
  return { kind: 'invalid', reason: 'invalid_x402_version: x402 version 2 and version 1 payments are accepted' };
}

/** The payment in a request's `_meta`, if any. */
export function readPayment(meta: Record<string, unknown>): PaymentInput {
  return readPaymentValue(meta[PAYMENT_META_KEY] ?? meta[PAYMENT_META_KEY_DOTTED]);
}
