/**
 * A deployment's additions (tools/index.ts) as registry definitions: paid tools, resources, resource templates and
 * prompts behind x402 at their own price (or X402_PRICE).
 */

import { withPaidPrompt, withPaidResource, withPaidTemplate } from '../pay/paid-entries.js';
import { parseUsd, type Offer } from '../pay/price.js';
import { withPayment } from '../pay/with-payment.js';
import type { PaymentEngine } from '../pay/engine.js';
import type { RegistryDefinition } from '../server/registry.js';
import type { Additions } from './index.js';

/** Named in collision errors: where a deployment lists what it adds. */
export const ADDITIONS_ORIGIN = 'tools/index.ts';

/** What makes an entry paid: `paid` (at X402_PRICE) or its own `price`. */
interface Priced {
  paid?: boolean;
  price?: `$${string}`;
}

/**
 * The offer of an entry that is paid, undefined for a free one; a bad price, or a paid entry without X402_PAY_TO, is a
 * TypeError naming the entry (`Tool "x"`, `Resource "notes://x"`, `Prompt "x"`).
 */
function offerOf({ paid, price }: Priced, named: string, engine: PaymentEngine | undefined): Offer | undefined {
  if (!paid && price === undefined) return undefined;
  const own = price === undefined ? undefined : parseUsd(price);
  if (price !== undefined && (!own || !/[1-9]/.test(own))) {
    throw new TypeError(`${named} (${ADDITIONS_ORIGIN}) has price "${String(price)}"; a price is a positive USD amount such as '$0.05'.`);
  }
  if (!engine) throw new TypeError(`${named} (${ADDITIONS_ORIGIN}) is ${own ? 'priced' : 'marked paid'}, but X402_PAY_TO is not set; set X402_PAY_TO or drop ${own ? 'price' : 'paid'}.`);
  // An entry's own price is the entry's; X402_PRICE is what a paid entry without one costs.
  return { price: own ?? engine.config.price };
}

/** `entry` without its payment setting, and behind x402 by `wrap` when it is paid. */
function applied<T extends Priced>(entry: T, named: string, engine: PaymentEngine | undefined, wrap: (free: Omit<T, keyof Priced>, engine: PaymentEngine, offer: Offer) => Omit<T, keyof Priced>) {
  const { paid, price, ...free } = entry;
  const offer = offerOf({ paid, price }, named, engine);
  return offer ? wrap(free, engine!, offer) : free;
}

/** The definitions of `additions`, paid entries behind x402. */
export function additionDefinitions(additions: Additions, engine: PaymentEngine | undefined): RegistryDefinition {
  return {
    origin: ADDITIONS_ORIGIN,
    tools: additions.tools?.map((tool) => applied(tool, `Tool "${tool.name}"`, engine, withPayment)) ?? [],
    resources: additions.resources?.map((resource) => applied(resource, `Resource "${resource.uri}"`, engine, withPaidResource)),
    resourceTemplates: additions.resourceTemplates?.map((template) => applied(template, `Resource template "${template.uriTemplate}"`, engine, withPaidTemplate)),
    prompts: additions.prompts?.map((prompt) => applied(prompt, `Prompt "${prompt.name}"`, engine, withPaidPrompt)),
  };
}
