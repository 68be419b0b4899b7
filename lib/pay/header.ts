/**
 * A payment sent as an HTTP header (`X-PAYMENT`, `PAYMENT-SIGNATURE`) pays for the one `tools/call` its POST
 * carries: it is moved into that call's `params._meta["x402/payment"]`, so it is verified, settled once and
 * replay-checked by exactly the rules of a `_meta` payment (paywall.ts). A header belongs to one HTTP
 * request, so:
 * - on a request that is not `tools/call` (initialize, tools/list, a notification) it is ignored: x402 HTTP
 *   clients attach it to whatever they retry, and nothing is charged there;
 * - on a legacy batch holding a `tools/call` it is refused: which call it pays for would be a guess;
 * - beside a different payment (the other header, or one in `_meta`) it is refused: a call is paid once.
 */

import { isObject, isRequest } from '../protocol/jsonrpc.js';
import { PAYMENT_HEADERS, PAYMENT_META_KEY, PAYMENT_META_KEY_DOTTED, readPaymentValue, type PayloadBounds } from './payload.js';

export type HeaderPayment =
  | { kind: 'message'; message: unknown }
  | { kind: 'refused'; reason: string };

const isToolCall = (message: unknown) => isRequest(message) && message.method === 'tools/call';

/** The same payment, whatever its encoding (object or base64 JSON within `bounds`). */
function samePayment(a: unknown, b: unknown, bounds: PayloadBounds): boolean {
  if (a === b) return true;
  const [x, y] = [readPaymentValue(a, bounds), readPaymentValue(b, bounds)];
  return x.kind === 'payload' && y.kind === 'payload' && JSON.stringify(x.payload) === JSON.stringify(y.payload);
}

/** The payment header of a request, if any; refused when two headers disagree. */
function headerPayment(headers: Headers, bounds: PayloadBounds): { value?: string } | { refused: string } {
  const values = PAYMENT_HEADERS.map((name) => headers.get(name)).filter((v): v is string => v !== null && v.trim() !== '');
  if (values.length === 2 && !samePayment(values[0], values[1], bounds)) {
    return { refused: 'X-PAYMENT and PAYMENT-SIGNATURE carry different payments; send one payment per call.' };
  }
  return { value: values[0] };
}

/** Why `headers` carry a payment this batch cannot use (it holds a tools/call), or undefined. */
export function refuseBatchPayment(headers: Headers, messages: unknown[]): string | undefined {
  if (!PAYMENT_HEADERS.some((name) => headers.has(name)) || !messages.some(isToolCall)) return undefined;
  return `A payment header pays for one tools/call; this batch has ${messages.filter(isToolCall).length}. `
    + `Send paid calls one per request, or put each payment in its call's params._meta["${PAYMENT_META_KEY}"].`;
}

/**
 * `message` with the header's payment in `params._meta`, unchanged when there is none or it is not a tools/call.
 * `bounds` are the body's: a header payment is decoded within them when it must be compared with another.
 */
export function applyHeaderPayment(headers: Headers, message: unknown, bounds: PayloadBounds): HeaderPayment {
  if (!isToolCall(message)) return { kind: 'message', message };
  const found = headerPayment(headers, bounds);
  if ('refused' in found) return { kind: 'refused', reason: found.refused };
  if (found.value === undefined) return { kind: 'message', message };
  const params = (message as { params?: Record<string, unknown> }).params ?? {};
  const meta = isObject(params._meta) ? params._meta : {};
  const inMeta = meta[PAYMENT_META_KEY] ?? meta[PAYMENT_META_KEY_DOTTED];
  if (inMeta !== undefined && inMeta !== null) {
    if (samePayment(inMeta, found.value, bounds)) return { kind: 'message', message };
    return { kind: 'refused', reason: `The payment header and params._meta["${PAYMENT_META_KEY}"] carry different payments; send one payment per call.` };
  }
  return {
    kind: 'message',
    message: { ...(message as object), params: { ...params, _meta: { ...meta, [PAYMENT_META_KEY]: found.value } } },
  };
}
