/**
 * Paid tools: `withPayment(tool, engine)` returns the same tool behind an x402 paywall (v2, and v1 payloads): the
 * payment is checked, the tool run with its reply held and the payment settled as paywall.ts says, and the answer is
 * given on the binding the request chose (binding.ts). A request that declares `org.x402/payment` and carries no
 * payment gets `payment_required` before the call runs or becomes a task (the tool's precheck). The dispatcher never
 * hears of it.
 */

import type * as z from 'zod';
import type { RequestContext } from '../server/context.js';
import {
  isInputRequired, type RegistryDefinition, type RunOutcome, type ToolDefinition, type ToolResult,
} from '../server/registry.js';
import { paymentRequiredResult, toolAnswer, usesExtension } from './binding.js';
import type { PaymentEngine } from './engine.js';
import { payFor, withoutPayment } from './paywall.js';
import type { Offer, TokenPrices } from './price.js';

export { CHARGED_META_KEY } from './paywall.js';

/** Where tools/list shows that a tool is paid, and its price. */
export const PRICE_META_KEY = 'x402/price';

/** What one call's arguments cost, when that depends on them (chat_with_agent: its agent's token prices). */
export type OfferOf = (args: Record<string, unknown>) => Offer;

const UNPAID = 'Payment required to access this tool';

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
  const offerFor = (args: z.output<Input>) => (offerOf ? offerOf(args as Record<string, unknown>) : offer);

  async function runPaid(args: z.output<Input>, ctx: RequestContext): Promise<RunOutcome> {
    const paid = await payFor<ToolResult, RunOutcome>(engine, {
      resource, offer: offerFor(args), unpaid: UNPAID, call: [tool.name, args],
      run: async (held) => tool.run(args, held),
      // A failed call, a request for input or a result of another type is passed on and settles nothing.
      charges: (answer): answer is ToolResult => !isInputRequired(answer) && 'content' in answer && answer.isError !== true,
    }, ctx);
    return toolAnswer(paid, ctx);
  }

  // A request on the extension binding without a payment gets payment_required before the call runs or becomes a task.
  async function precheck(args: z.output<Input>, ctx: RequestContext) {
    if (!usesExtension(ctx)) return undefined;
    const missing = await withoutPayment(engine, { resource, offer: offerFor(args), unpaid: UNPAID }, ctx);
    return missing?.kind === 'required' ? paymentRequiredResult(missing) : undefined;
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
    precheck,
    run: runPaid,
  };
}

/** Token prices as tools/list and an agent's resource say them. */
export const uptoPrices = (tokens: TokenPrices) => ({ perMillionTokens: { input: tokens.input, output: tokens.output }, max: tokens.max });

/** `definition` with the tool called `name` made paid; other entries unchanged. */
export function withPaidTool(definition: RegistryDefinition, name: string, engine: PaymentEngine, offer?: Offer, offerOf?: OfferOf): RegistryDefinition {
  return { ...definition, tools: definition.tools?.map((tool) => (tool.name === name ? withPayment(tool, engine, offer, offerOf) : tool)) };
}
