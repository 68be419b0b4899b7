/** A deployment's additions (tools/index.ts) as registry definitions, paid tools behind x402. */

import { withPayment } from '../pay/with-payment.js';
import type { PaymentEngine } from '../pay/engine.js';
import type { RegistryDefinition } from '../server/registry.js';
import type { Additions } from './index.js';

/** Named in collision errors: where a deployment lists what it adds. */
export const ADDITIONS_ORIGIN = 'tools/index.ts';

/** The definitions of `additions`; a paid tool without X402_PAY_TO is a TypeError naming the tool. */
export function additionDefinitions(additions: Additions, engine: PaymentEngine | undefined): RegistryDefinition {
  const tools = (additions.tools ?? []).map(({ paid, ...tool }) => {
    if (!paid) return tool;
    if (!engine) throw new TypeError(`Tool "${tool.name}" (${ADDITIONS_ORIGIN}) is marked paid, but X402_PAY_TO is not set; set X402_PAY_TO or drop paid.`);
    return withPayment(tool, engine);
  });
  return {
    origin: ADDITIONS_ORIGIN,
    tools,
    resources: additions.resources,
    resourceTemplates: additions.resourceTemplates,
    prompts: additions.prompts,
  };
}
