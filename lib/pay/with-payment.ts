/**
 * Paid tools: `withPayment(tool, engine)` returns the same tool behind an x402 paywall (v2, and v1 payloads) (x402 `specs/transports-v2/mcp.md`;
 * the order follows @x402/mcp's `createPaymentWrapper`): no payment → PaymentRequired; payment → verified by
 * the facilitator before the tool runs; the tool's failure → passed through, nothing settled; success →
 * recorded, then settled, receipt in `_meta["x402/payment-response"]`; no room to record it → nothing settled;
 * settlement failure → output withheld. What it costs is the tool's offer: a fixed price (`exact`), and, with token
 * prices, the price of the tokens the call used up to the ceiling its payer signed (`upto`, priced from the call's
 * meter once the tool has answered; a call that used nothing settles nothing). A payment used again gets the first result back without a second
 * settlement (replay.ts). The dispatcher never hears of it.
 *
 * Nothing of the result leaves before it is paid (docs/architecture.md rule 15): the tool runs in a context whose
 * reply is held (context.ts withReplyHeld: status-only progress, no logs, no text in a run's report, so neither the
 * answer at a reply deadline nor a collection shows any), and its result is this function's to let out, after
 * settlement. A call cancelled before settlement is not settled: its result could no longer reach its caller.
 */

import type * as z from 'zod';
import { withReplyHeld, type RequestContext } from '../server/context.js';
import { principalKey } from '../server/principal-key.js';
import {
  isInputRequired, type InputRequired, type RegistryDefinition, type ToolDefinition, type ToolResult,
} from '../server/registry.js';
import type { PaymentRequirements } from '@x402/core/types';
import type { MatchedRequirements, PaymentEngine } from './engine.js';
import { PAYMENT_RESPONSE_META_KEY, readPayment } from './payload.js';
import { chargeFor, fromAtomic, type Charge, type Offer, type TokenPrices } from './price.js';
import { claimPayment, fingerprintOf, forgetPaid, paymentIdOf, recordPaid, recordSettling, releasePayment } from './replay.js';
import { cancelledUnpaid, facilitatorUnavailable, paymentRequired, recordUnavailable, settlementFailed } from './results.js';

/** Where tools/list shows that a tool is paid, and its price. */
export const PRICE_META_KEY = 'x402/price';
/** Where a paid result says what was charged for it (scheme, amount, price; for `upto` how it was reckoned): a key of our own, as USAGE_META is, not one in x402's namespace. */
export const CHARGED_META_KEY = 'dev.agent-mcp/charged';

/** What one call's arguments cost, when that depends on them (chat_with_agent: its agent's token prices). */
export type OfferOf = (args: Record<string, unknown>) => Offer;

/**
 * `tool` behind x402 at `offer`; X402_PRICE (the engine's default) when the tool names no price of its own. With
 * `offerOf`, each call's PaymentRequired, verification and settlement use the offer of its arguments; tools/list
 * still shows `offer`.
 */
export function withPayment<Input extends z.ZodType>(
  tool: ToolDefinition<Input>, engine: PaymentEngine, offer: Offer = { price: engine.config.price }, offerOf?: OfferOf,
): ToolDefinition<Input> {
  const { network, payTo } = engine.config;
  const { price, tokens: listedTokens } = offer;
  const resource = { url: `mcp://tool/${tool.name}`, description: `Tool: ${tool.name}`, mimeType: 'application/json' };

  async function runPaid(args: z.output<Input>, ctx: RequestContext): Promise<ToolResult | InputRequired> {
    const callOffer = offerOf ? offerOf(args as Record<string, unknown>) : offer;
    const { tokens } = callOffer;
    const required = (error: string) => paymentRequired(engine, resource, error, callOffer);
    const input = readPayment(ctx.meta, engine.config.payloadBounds);
    if (input.kind === 'none') return required('Payment required to access this tool');
    if (input.kind === 'invalid') return required(input.reason);
    const { payload } = input;
    const id = await paymentIdOf(payload);
    // The payment pays for this call only: same tool, arguments and caller.
    const fingerprint = await fingerprintOf([tool.name, args, ctx.principal ? principalKey(ctx.principal) : '', payload.payload]);
    const claim = await claimPayment(ctx.store, id, ctx.signal);
    if (claim.kind === 'recorded') {
      return claim.record.fingerprint === fingerprint
        ? claim.record.result
        : required('payment_already_used: this payment already paid for another call');
    }
    if (claim.kind === 'busy') {
      return { content: [{ type: 'text', text: 'A call paid with this payment is still running; send the same payment again later to get its result.' }], isError: true };
    }
    try {
      const verified = await engine.verify(payload, resource, callOffer);
      if (verified.kind === 'unavailable') return facilitatorUnavailable(engine, verified.reason);
      if (verified.kind === 'refused') return required(verified.reason);
      const result = await tool.run(args, withReplyHeld(ctx));
      if (isInputRequired(result) || result.isError) return result;
      if (ctx.signal.aborted) return cancelledUnpaid();
      // What the call costs is known now, from the meter every model request of the call reported into.
      const decimals = await engine.decimalsOf(verified.requirements as PaymentRequirements);
      const upto = isUpto(verified.requirements) && tokens ? verified.requirements : undefined;
      const charge = upto && chargeFor(ctx.usage.total, tokens!, decimals, BigInt(upto.amount));
      const priced = withCharged(result, chargedMeta(verified.requirements, charge, decimals));
      // Recorded before it is settled: a payment whose replay could not be answered is not taken.
      const unrecorded = await recordSettling(ctx.store, id, fingerprint, priced).then(() => undefined, (error: unknown) => error);
      if (unrecorded !== undefined) {
        console.error('[agent-mcp] a verified payment was not settled: its record could not be kept:', unrecorded);
        return recordUnavailable();
      }
      // An upto call that used nothing settles nothing: its authorization is never sent to the chain.
      const settled = charge?.amount === 0n
        ? { kind: 'settled' as const, receipt: { success: true, transaction: '', network: upto!.network, amount: '0', ...(verified.payer ? { payer: verified.payer } : {}) } }
        : await engine.settle(payload, verified.requirements, charge?.amount);
      if (settled.kind === 'failed') {
        await forgetPaid(ctx.store, id).catch((error) => console.error('[agent-mcp] the record of a payment that failed to settle could not be removed:', error));
        return settlementFailed(engine, resource, settled.reason, callOffer, settled.receipt);
      }
      const paid: ToolResult = { ...priced, _meta: { ...priced._meta, [PAYMENT_RESPONSE_META_KEY]: settled.receipt } };
      await recordPaid(ctx.store, id, { fingerprint, result: paid }).catch((error) => {
        console.error('[agent-mcp] a settled payment\'s receipt could not be recorded; a replay of it gets the result without the receipt:', error);
      });
      return paid;
    } finally {
      await releasePayment(ctx.store, id).catch(() => undefined);
    }
  }

  // No outputSchema on a paid tool: its PaymentRequired results cannot match the tool's own schema, and SDK v1
  // clients (which @x402/mcp's client builds on) validate structuredContent even on isError results, so they
  // would reject the payment request itself. Successful results keep their structuredContent.
  const { output: _unlisted, ...listed } = tool;
  const byUse = listedTokens
    ? ` Or, paid by use (x402 upto): ${listedTokens.input} per million input tokens and ${listedTokens.output} per million output tokens, at most ${listedTokens.max} a call.`
    : '';
  return {
    ...listed,
    description: `${tool.description} Each call costs ${price}, paid with x402 on ${network}.${byUse}`,
    _meta: { ...tool._meta, [PRICE_META_KEY]: { scheme: 'exact', price, network, payTo, ...(listedTokens ? { upto: uptoPrices(listedTokens) } : {}) } },
    run: runPaid,
  };
}

/** Token prices as tools/list and an agent's resource say them. */
export const uptoPrices = (tokens: TokenPrices) => ({ perMillionTokens: { input: tokens.input, output: tokens.output }, max: tokens.max });

const isUpto = (requirements: MatchedRequirements): requirements is PaymentRequirements => requirements.scheme === 'upto';

/** What the result says was charged: the amount in the asset's smallest units and in USD; for upto, how it was reckoned. */
function chargedMeta(requirements: MatchedRequirements, charge: Charge | undefined, decimals: number): Record<string, unknown> {
  const amount = charge?.amount ?? BigInt('amount' in requirements ? requirements.amount : requirements.maxAmountRequired);
  return {
    scheme: requirements.scheme,
    amount: amount.toString(),
    price: fromAtomic(amount, decimals),
    ...(charge ? { basis: charge.basis, ceiling: (requirements as PaymentRequirements).amount, ...(charge.estimated ? { estimated: true } : {}) } : {}),
  };
}

const withCharged = (result: ToolResult, charged: Record<string, unknown>): ToolResult =>
  ({ ...result, _meta: { ...result._meta, [CHARGED_META_KEY]: charged } });

/** `definition` with the tool called `name` made paid; other entries unchanged. */
export function withPaidTool(definition: RegistryDefinition, name: string, engine: PaymentEngine, offer?: Offer, offerOf?: OfferOf): RegistryDefinition {
  return { ...definition, tools: definition.tools?.map((tool) => (tool.name === name ? withPayment(tool, engine, offer, offerOf) : tool)) };
}
