/**
 * Where a payment travels in an MCP request (x402 `specs/transports-v2/mcp.md` and the v1/v2 HTTP headers of `specs/x402-specification-v1.md`/`-v2.md`): `params._meta["x402/payment"]` holding
 * the PaymentPayload object (the spec and @x402/mcp) or a base64 string of it (Cloudflare agents),
 * `params._meta["x402.payment"]` (x402-mcp), or the HTTP headers x402 uses outside MCP: `X-PAYMENT` (v1, the
 * seed tutorial's) and `PAYMENT-SIGNATURE` (v2), base64 JSON (header.ts moves them into `_meta`). Payloads of
 * x402 v2 and v1 are accepted. Only the shape is checked here; the facilitator checks the rest.
 *
 * A base64 payment is a body inside the body (or inside a header, which the body's bounds never saw): decoded, it
 * gets the body's size and depth bounds (MCP_MAX_BODY_BYTES, MCP_MAX_JSON_DEPTH), so nothing deeper ever reaches
 * the code that digests or copies a payment (docs/architecture.md rule 14).
 */

import type { PaymentPayload, PaymentPayloadV1 } from '@x402/core/types';
import { nestsDeeperThan } from '../http/body.js';
import { DEFAULT_REQUEST_BOUNDS, type RequestBounds } from '../http/bounds.js';
import { createCountedWarning, type CountedWarning } from '../warn.js';

export const PAYMENT_META_KEY = 'x402/payment';
export const PAYMENT_META_KEY_DOTTED = 'x402.payment';
export const PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';

/**
 * x402's MCP extension (x402 `specs/transports-v2/mcp.md` "Extension binding"): a 2026-07-28 client that declares it
 * in a request's client capabilities gets, for a paid operation without an acceptable payment, a result of type
 * `payment_required` with the PaymentRequired in `paymentRequired`, before anything runs.
 */
export const X402_EXTENSION = 'org.x402/payment';
export const RESULT_TYPE_PAYMENT_REQUIRED = 'payment_required';

/** x402 v1's payment header (the seed tutorial's); v2 clients send `PAYMENT-SIGNATURE`. */
export const H_X_PAYMENT = 'x-payment';
export const H_PAYMENT_SIGNATURE = 'payment-signature';
export const PAYMENT_HEADERS = [H_X_PAYMENT, H_PAYMENT_SIGNATURE] as const;

/** A payment of either x402 version. */
export type AnyPaymentPayload = PaymentPayload | PaymentPayloadV1;

/** The bounds a decoded payment is held to: the request body's. */
export type PayloadBounds = Pick<RequestBounds, 'maxBodyBytes' | 'maxJsonDepth'>;

export type PaymentInput =
  | { kind: 'none' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'payload'; payload: AnyPaymentPayload };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Decoded = { value: unknown } | { refused: string };

function decodeBase64Json(text: string, { maxBodyBytes, maxJsonDepth }: PayloadBounds): Decoded {
  let value: unknown;
  try {
    const bytes = Uint8Array.from(atob(text.trim()), (c) => c.charCodeAt(0));
    if (bytes.byteLength > maxBodyBytes) return outOfBounds(`it decodes to more than ${maxBodyBytes} bytes`);
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { value: undefined };
  }
  if (nestsDeeperThan(value, maxJsonDepth)) return outOfBounds(`its JSON nests deeper than ${maxJsonDepth} levels`);
  return { value };
}

function outOfBounds(why: string): Decoded {
  boundHits().note(why);
  return { refused: `invalid_payload: the base64 payment is refused: ${why}` };
}

let warning: CountedWarning | undefined;

/** One operator line a minute at most, however many payments are refused. */
function boundHits(): CountedWarning {
  return (warning ??= createCountedWarning((why, count) =>
    `${count} base64 x402 payment${count === 1 ? ' was' : 's were'} refused as invalid_payload (latest: ${why}; ` +
    'bounds MCP_MAX_BODY_BYTES, MCP_MAX_JSON_DEPTH).'));
}

/** A payment value as found (object or base64 JSON string within `bounds`), checked for the shape of its version. */
export function readPaymentValue(raw: unknown, bounds: PayloadBounds = DEFAULT_REQUEST_BOUNDS): PaymentInput {
  if (raw === undefined || raw === null) return { kind: 'none' };
  const decoded = typeof raw === 'string' ? decodeBase64Json(raw, bounds) : { value: raw };
  if ('refused' in decoded) return { kind: 'invalid', reason: decoded.refused };
  const { value } = decoded;
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
export function readPayment(meta: Record<string, unknown>, bounds?: PayloadBounds): PaymentInput {
  return readPaymentValue(meta[PAYMENT_META_KEY] ?? meta[PAYMENT_META_KEY_DOTTED], bounds);
}
