/**
 * One paid operation, whatever it is (a tool call, a resource read, a prompt get) and whichever binding answers it
 * (binding.ts), in the order of x402 `specs/transports-v2/mcp.md` and @x402/mcp's `createPaymentWrapper`: no payment →
 * PaymentRequired; payment → verified by the facilitator before the operation runs; the operation's failure → passed
 * through, nothing settled; success → recorded, then settled, receipt in `_meta["x402/payment-response"]`; no room to
 * record it → nothing settled; settlement failure → output withheld. What it costs is the operation's offer: a fixed
 * price (`exact`), and, with token prices, the price of the tokens the call used up to the ceiling its payer signed
 * (`upto`, priced from the call's meter once the operation has answered; a call that used nothing settles nothing). A
 * payment used again gets the first answer back without a second settlement (replay.ts).
 *
 * Nothing of the answer leaves before it is paid (docs/architecture.md rule 15): the operation runs in a context whose
 * reply is held (context.ts withReplyHeld: status-only progress, no logs, no text in a run's report), and its answer
 * is this function's to let out, after settlement. An operation cancelled before settlement is not settled: its
 * answer could no longer reach its caller.
 */

import type { PaymentRequired, PaymentRequirements, ResourceInfo, SettleResponse } from '@x402/core/types';
import { REFUSAL, withReplyHeld, type RequestContext } from '../server/context.js';
import { principalKey } from '../server/principal-key.js';
import type { MatchedRequirements, PaymentEngine } from './engine.js';
import { PAYMENT_RESPONSE_META_KEY, readPayment, type AnyPaymentPayload } from './payload.js';
import { chargeFor, fromAtomic, type Charge, type Offer } from './price.js';
import { claimPayment, fingerprintOf, forgetPaid, paymentIdOf, recordPaid, recordSettling, releasePayment } from './replay.js';
import { CANCELLED_UNPAID, PAYMENT_BUSY, RECORD_UNAVAILABLE, facilitatorUnavailable } from './results.js';

/** Where a paid result says what was charged for it (scheme, amount, price; for `upto` how it was reckoned): a key of our own, as USAGE_META is, not one in x402's namespace. */
export const CHARGED_META_KEY = 'dev.agent-mcp/charged';

/** An answer that can carry a receipt. */
export type Receipted = { _meta?: Record<string, unknown> };

export interface PaidOperation<Charged extends Receipted, Passed> {
  /** x402's name for what is paid for (`mcp://tool/{name}`, the resource's URI, `mcp://prompt/{name}`). */
  resource: ResourceInfo;
  offer: Offer;
  /** The PaymentRequired's `error` for a request that carries no payment. */
  unpaid: string;
  /** What one payment pays for, besides its caller: the operation and its arguments. */
  call: unknown[];
  /** Runs the operation, in a context whose reply is held. */
  run(held: RequestContext): Promise<Charged | Passed>;
  /** True for an answer that is charged; any other (a tool's isError result, a request for input) passes, unsettled. */
  charges(answer: Charged | Passed): answer is Charged;
}

/** The PaymentRequired (with the failed receipt when settlement failed) a request gets instead of the answer. */
export interface StillRequired {
  kind: 'required';
  paymentRequired: PaymentRequired;
  receipt?: SettleResponse;
}

/**
 * How a paid operation ended: its answer (paid, replayed, or passed unsettled); a PaymentRequired; or refused with a
 * fixed sentence, nothing charged and no PaymentRequired (an unreachable facilitator, an unrecordable payment, a
 * cancelled call, a payment in use), so clients do not sign payments that cannot be checked.
 */
export type Paywalled<Answer> = { kind: 'answer'; answer: Answer } | StillRequired | Refused;

type Refused = { kind: 'refused'; text: string };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The PaymentRequired for `op`, saying `error`; a refusal when the facilitator cannot say what to pay. */
async function requiredFor(
  engine: PaymentEngine, op: Pick<PaidOperation<Receipted, unknown>, 'resource' | 'offer'>, ctx: RequestContext, error: string, receipt?: SettleResponse,
): Promise<StillRequired | Refused> {
  let paymentRequired: PaymentRequired;
  try {
    paymentRequired = await engine.paymentRequired(op.resource, error, op.offer);
  } catch (cause) {
    return { kind: 'refused', text: facilitatorUnavailable(engine, messageOf(cause)) };
  }
  // A request sent back to pay is a refusal (the usage counters', its span's); a failed settlement (with its receipt)
  // is not, nor a facilitator that could not say what to pay (the server's failure, not the caller's).
  if (!receipt) ctx.observation?.noteRefusal?.(REFUSAL.payment);
  return { kind: 'required', paymentRequired, ...(receipt ? { receipt } : {}) };
}

/** The request's payment; or, when it carries none or one that is not a payment, what it gets instead. */
async function paymentOf(
  engine: PaymentEngine, op: Pick<PaidOperation<Receipted, unknown>, 'resource' | 'offer' | 'unpaid'>, ctx: RequestContext,
): Promise<{ payload: AnyPaymentPayload } | StillRequired | Refused> {
  const input = readPayment(ctx.meta, engine.config.payloadBounds);
  if (input.kind === 'payload') return { payload: input.payload };
  return requiredFor(engine, op, ctx, input.kind === 'none' ? op.unpaid : input.reason);
}

/** What a request without a usable payment gets before anything runs; undefined when it carries one (payFor checks it). */
export async function withoutPayment(
  engine: PaymentEngine, op: Pick<PaidOperation<Receipted, unknown>, 'resource' | 'offer' | 'unpaid'>, ctx: RequestContext,
): Promise<StillRequired | Refused | undefined> {
  const found = await paymentOf(engine, op, ctx);
  return 'payload' in found ? undefined : found;
}

export async function payFor<Charged extends Receipted, Passed>(
  engine: PaymentEngine, op: PaidOperation<Charged, Passed>, ctx: RequestContext,
): Promise<Paywalled<Charged | Passed>> {
  const found = await paymentOf(engine, op, ctx);
  if (!('payload' in found)) return found;
  const { payload } = found;
  const id = await paymentIdOf(payload);
  // The payment pays for this operation only: same operation, arguments and caller.
  const fingerprint = await fingerprintOf([...op.call, ctx.principal ? principalKey(ctx.principal) : '', payload.payload]);
  const claim = await claimPayment(ctx.store, id, ctx.signal);
  if (claim.kind === 'recorded') {
    return claim.record.fingerprint === fingerprint
      ? { kind: 'answer', answer: claim.record.result as Charged }
      : requiredFor(engine, op, ctx, 'payment_already_used: this payment already paid for another call');
  }
  if (claim.kind === 'busy') return { kind: 'refused', text: PAYMENT_BUSY };
  try {
    const verified = await engine.verify(payload, op.resource, op.offer);
    if (verified.kind === 'unavailable') return { kind: 'refused', text: facilitatorUnavailable(engine, verified.reason) };
    if (verified.kind === 'refused') return requiredFor(engine, op, ctx, verified.reason);
    const answer = await op.run(withReplyHeld(ctx));
    if (!op.charges(answer)) return { kind: 'answer', answer };
    if (ctx.signal.aborted) return { kind: 'refused', text: CANCELLED_UNPAID };
    // What the call costs is known now, from the meter every model request of the call reported into.
    const { tokens } = op.offer;
    const decimals = await engine.decimalsOf(verified.requirements as PaymentRequirements);
    const upto = isUpto(verified.requirements) && tokens ? verified.requirements : undefined;
    const charge = upto && chargeFor(ctx.usage.total, tokens!, decimals, BigInt(upto.amount));
    const priced = withMeta(answer, CHARGED_META_KEY, chargedMeta(verified.requirements, charge, decimals));
    // Recorded before it is settled: a payment whose replay could not be answered is not taken.
    const unrecorded = await recordSettling(ctx.store, id, fingerprint, priced).then(() => undefined, (error: unknown) => error);
    if (unrecorded !== undefined) {
      console.error('[agent-mcp] a verified payment was not settled: its record could not be kept:', unrecorded);
      return { kind: 'refused', text: RECORD_UNAVAILABLE };
    }
    // An upto call that used nothing settles nothing: its authorization is never sent to the chain.
    const settled = charge?.amount === 0n
      ? { kind: 'settled' as const, receipt: { success: true, transaction: '', network: upto!.network, amount: '0', ...(verified.payer ? { payer: verified.payer } : {}) } }
      : await engine.settle(payload, verified.requirements, charge?.amount);
    if (settled.kind === 'failed') {
      await forgetPaid(ctx.store, id).catch((error) => console.error('[agent-mcp] the record of a payment that failed to settle could not be removed:', error));
      const failure = settled.receipt ?? { success: false, errorReason: settled.reason, transaction: '', network: engine.config.network };
      return requiredFor(engine, op, ctx, `Payment settlement failed: ${settled.reason}`, failure);
    }
    ctx.observation?.noteEarned?.(microUsdOf(chargedAmount(verified.requirements, charge), decimals));
    const paid = withMeta(priced, PAYMENT_RESPONSE_META_KEY, settled.receipt);
    await recordPaid(ctx.store, id, { fingerprint, result: paid }).catch((error) => {
      console.error('[agent-mcp] a settled payment\'s receipt could not be recorded; a replay of it gets the result without the receipt:', error);
    });
    return { kind: 'answer', answer: paid };
  } finally {
    await releasePayment(ctx.store, id).catch(() => undefined);
  }
}

const isUpto = (requirements: MatchedRequirements): requirements is PaymentRequirements => requirements.scheme === 'upto';

/** What the result says was charged: the amount in the asset's smallest units and in USD; for upto, how it was reckoned. */
function chargedMeta(requirements: MatchedRequirements, charge: Charge | undefined, decimals: number): Record<string, unknown> {
  const amount = chargedAmount(requirements, charge);
  return {
    scheme: requirements.scheme,
    amount: amount.toString(),
    price: fromAtomic(amount, decimals),
    ...(charge ? { basis: charge.basis, ceiling: (requirements as PaymentRequirements).amount, ...(charge.estimated ? { estimated: true } : {}) } : {}),
  };
}

/** What a call is charged, in the asset's smallest units: the upto charge, else the price asked. */
function chargedAmount(requirements: MatchedRequirements, charge: Charge | undefined): bigint {
  return charge?.amount ?? BigInt('amount' in requirements ? requirements.amount : requirements.maxAmountRequired);
}

/** An amount of a dollar stablecoin in millionths of a dollar (the usage counters' unit), rounded down. */
function microUsdOf(amount: bigint, decimals: number): number {
  return Number(decimals >= 6 ? amount / 10n ** BigInt(decimals - 6) : amount * 10n ** BigInt(6 - decimals));
}

const withMeta = <T extends Receipted>(answer: T, key: string, value: unknown): T => ({ ...answer, _meta: { ...answer._meta, [key]: value } });
