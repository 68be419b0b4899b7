/**
 * Paid tools: `withPayment(tool, engine)` returns the same tool behind an x402 paywall (v2, and v1 payloads) (reference §A5;
 * the order follows @x402/mcp's `createPaymentWrapper`): no payment → PaymentRequired; payment → verified by
 * the facilitator before the tool runs; the tool's failure → passed through, nothing settled; success →
 * recorded, then settled, receipt in `_meta["x402/payment-response"]`; no room to record it → nothing settled;
 * settlement failure → output withheld. A payment used again gets the first result back without a second
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
import type { PaymentEngine } from './engine.js';
import { PAYMENT_RESPONSE_META_KEY, readPayment } from './payload.js';
import { claimPayment, fingerprintOf, forgetPaid, paymentIdOf, recordPaid, recordSettling, releasePayment } from './replay.js';
import { cancelledUnpaid, facilitatorUnavailable, paymentRequired, recordUnavailable, settlementFailed } from './results.js';

/** Where tools/list shows that a tool is paid, and its price. */
export const PRICE_META_KEY = 'x402/price';

export function withPayment<Input extends z.ZodType>(tool: ToolDefinition<Input>, engine: PaymentEngine): ToolDefinition<Input> {
  const { price, network, payTo } = engine.config;
  const resource = { url: `mcp://tool/${tool.name}`, description: `Tool: ${tool.name}`, mimeType: 'application/json' };

  async function runPaid(args: z.output<Input>, ctx: RequestContext): Promise<ToolResult | InputRequired> {
    const input = readPayment(ctx.meta, engine.config.payloadBounds);
    if (input.kind === 'none') return paymentRequired(engine, resource, 'Payment required to access this tool');
    if (input.kind === 'invalid') return paymentRequired(engine, resource, input.reason);
    const { payload } = input;
    const id = await paymentIdOf(payload);
    // The payment pays for this call only: same tool, arguments and caller.
    const fingerprint = await fingerprintOf([tool.name, args, ctx.principal ? principalKey(ctx.principal) : '', payload.payload]);
    const claim = await claimPayment(ctx.store, id, ctx.signal);
    if (claim.kind === 'recorded') {
      return claim.record.fingerprint === fingerprint
        ? claim.record.result
        : paymentRequired(engine, resource, 'payment_already_used: this payment already paid for another call');
    }
    if (claim.kind === 'busy') {
      return { content: [{ type: 'text', text: 'A call paid with this payment is still running; send the same payment again later to get its result.' }], isError: true };
    }
    try {
      const verified = await engine.verify(payload, resource);
      if (verified.kind === 'unavailable') return facilitatorUnavailable(engine, verified.reason);
      if (verified.kind === 'refused') return paymentRequired(engine, resource, verified.reason);
      const result = await tool.run(args, withReplyHeld(ctx));
      if (isInputRequired(result) || result.isError) return result;
      if (ctx.signal.aborted) return cancelledUnpaid();
      // Recorded before it is settled: a payment whose replay could not be answered is not taken.
      const unrecorded = await recordSettling(ctx.store, id, fingerprint, result).then(() => undefined, (error: unknown) => error);
      if (unrecorded !== undefined) {
        console.error('[agent-mcp] a verified payment was not settled: its record could not be kept:', unrecorded);
        return recordUnavailable();
      }
      const settled = await engine.settle(payload, verified.requirements);
      if (settled.kind === 'failed') {
        await forgetPaid(ctx.store, id).catch((error) => console.error('[agent-mcp] the record of a payment that failed to settle could not be removed:', error));
        return settlementFailed(engine, resource, settled.reason, settled.receipt);
      }
      const paid: ToolResult = { ...result, _meta: { ...result._meta, [PAYMENT_RESPONSE_META_KEY]: settled.receipt } };
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
  return {
    ...listed,
    description: `${tool.description} Each call costs ${price}, paid with x402 on ${network}.`,
    _meta: { ...tool._meta, [PRICE_META_KEY]: { scheme: 'exact', price, network, payTo } },
    run: runPaid,
  };
}

/** `definition` with the tool called `name` made paid; other entries unchanged. */
export function withPaidTool(definition: RegistryDefinition, name: string, engine: PaymentEngine): RegistryDefinition {
  return { ...definition, tools: definition.tools?.map((tool) => (tool.name === name ? withPayment(tool, engine) : tool)) };
}
