/**
 * The fixed sentences of a paid operation that was refused with nothing charged (paywall.ts). They carry no
 * PaymentRequired, so clients do not sign a payment that cannot be checked; binding.ts says them as an `isError` tool
 * result or, for a read or a get, a JSON-RPC error.
 */

import type { PaymentEngine } from './engine.js';

export function facilitatorUnavailable(engine: PaymentEngine, reason: string): string {
  const host = new URL(engine.config.facilitatorUrl).host;
  return `Payment could not be processed: the x402 facilitator (${host}) could not be reached (${reason}). Nothing was charged; try again later.`;
}

/**
 * The operation ran but its payment could not be recorded (the store is full or down), so it was not settled: a
 * settled payment must be answerable when the client replays it.
 */
export const RECORD_UNAVAILABLE = 'Payment could not be processed: the server could not record it, so it was not settled. Nothing was charged; try again later.';

/** The call was cancelled after its operation answered and before its payment was settled: nothing was settled. */
export const CANCELLED_UNPAID = 'The call was cancelled before its payment was settled, so its result was withheld. Nothing was charged.';

/** Another request paid with the same payment is still running. */
export const PAYMENT_BUSY = 'A call paid with this payment is still running; send the same payment again later to get its result.';
