/** A deployment's additions (tools/index.ts) as registry definitions, paid tools behind x402 at their own price. */

import { parseUsd } from '../pay/price.js';
import { withPayment } from '../pay/with-payment.js';
import type { PaymentEngine } from '../pay/engine.js';
import type { RegistryDefinition } from '../server/registry.js';
import type { Additions } from './index.js';

/** Named in collision errors: where a deployment lists what it adds. */
export const ADDITIONS_ORIGIN = 'tools/index.ts';

/** The definitions of `additions`; a paid tool without X402_PAY_TO, or with a bad price, is a TypeError naming the tool. */
export function additionDefinitions(additions: Additions, engine: PaymentEngine | undefined): RegistryDefinition {
  const tools = (additions.tools ?? []).map(({ paid, price, ...tool }) => {
    if (!paid && price === undefined) return tool;
    const own = price === undefined ? undefined : parseUsd(price);
    if (price !== undefined && (!own || !/[1-9]/.test(own))) {
      throw new TypeError(`Tool "${tool.name}" (${ADDITIONS_ORIGIN}) has price "${String(price)}"; a price is a positive USD amount such as '$0.05'.`);
    }
    if (!engine) throw new TypeError(`Tool "${tool.name}" (${ADDITIONS_ORIGIN}) is ${own ? 'priced' : 'marked paid'}, but X402_PAY_TO is not set; set X402_PAY_TO or drop ${own ? 'price' : 'paid'}.`);
    // A tool's own price is the tool's; X402_PRICE is what a paid tool without one costs.
    return withPayment(tool, engine, { price: own ?? engine.config.price });
  });
  return {
    origin: ADDITIONS_ORIGIN,
    tools,
    resources: additions.resources,
    resourceTemplates: additions.resourceTemplates,
    prompts: additions.prompts,
  };
}
