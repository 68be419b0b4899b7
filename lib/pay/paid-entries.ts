/**
 * Paid resources, resource templates and prompts. x402's extension binding covers resources/read and prompts/get as
 * well as tools/call (x402 `specs/transports-v2/mcp.md` "Protocol Mapping"): each read or get is paid as a tool call
 * is (paywall.ts: verified before it runs, its answer held until settled, replays answered from the record) and
 * answered on the binding its request chose (binding.ts). Listed with `_meta["x402/price"]` and the price in the
 * description, as paid tools are.
 */

import type { RequestContext } from '../server/context.js';
import {
  isInputRequired, isOtherResult, type InputRequired, type OtherResult, type PromptDefinition, type PromptResult, type ReadOutcome,
  type ResourceContent, type ResourceDefinition, type ResourceTemplateDefinition,
} from '../server/registry.js';
import { entryAnswer } from './binding.js';
import type { PaymentEngine } from './engine.js';
import { payFor } from './paywall.js';
import type { Offer } from './price.js';
import { PRICE_META_KEY } from './with-payment.js';

type ReadResult = { contents: ResourceContent[]; _meta?: Record<string, unknown> };

/** A read's answer as a whole result, so that a receipt can go in its `_meta`. */
const wholeRead = (read: ReadOutcome): ReadResult | OtherResult => (Array.isArray(read) ? { contents: read } : read);

/** A read is charged when it found something to show; an empty one is the method's "not found", and settles nothing. */
const readCharges = (answer: ReadResult | OtherResult): answer is ReadResult =>
  !isOtherResult(answer) && Array.isArray(answer.contents) && answer.contents.length > 0;

function listed<T extends { description?: string; _meta?: Record<string, unknown> }>(entry: T, engine: PaymentEngine, offer: Offer, what: string) {
  const { network, payTo } = engine.config;
  const said = `Each ${what} costs ${offer.price}, paid with x402 on ${network}.`;
  return {
    description: entry.description ? `${entry.description} ${said}` : said,
    _meta: { ...entry._meta, [PRICE_META_KEY]: { scheme: 'exact', price: offer.price, network, payTo } },
  };
}

/** Reads `uri` behind x402 at `offer`. */
async function paidRead(engine: PaymentEngine, offer: Offer, uri: string, name: string, mimeType: string | undefined,
  read: (held: RequestContext) => ReadOutcome | Promise<ReadOutcome>, ctx: RequestContext): Promise<ReadOutcome> {
  const paid = await payFor(engine, {
    resource: { url: uri, description: `Resource: ${name}`, mimeType: mimeType ?? 'application/json' },
    offer,
    unpaid: 'Payment required to read this resource',
    call: ['resources/read', uri],
    run: async (held) => wholeRead(await read(held)),
    charges: readCharges,
  }, ctx);
  return entryAnswer(paid, ctx);
}

export function withPaidResource(resource: ResourceDefinition, engine: PaymentEngine, offer: Offer): ResourceDefinition {
  return {
    ...resource,
    ...listed(resource, engine, offer, 'read'),
    read: (ctx) => paidRead(engine, offer, resource.uri, resource.name, resource.mimeType, (held) => resource.read(held), ctx),
  };
}

/** Every resource the template serves is paid at `offer`, each URI on its own: a payment pays for the URI it was sent with. */
export function withPaidTemplate(template: ResourceTemplateDefinition, engine: PaymentEngine, offer: Offer): ResourceTemplateDefinition {
  return {
    ...template,
    ...listed(template, engine, offer, 'read'),
    read: (uri, variables, ctx) => paidRead(engine, offer, uri, template.name, template.mimeType, (held) => template.read(uri, variables, held), ctx),
  };
}

export function withPaidPrompt(prompt: PromptDefinition, engine: PaymentEngine, offer: Offer): PromptDefinition {
  const resource = { url: `mcp://prompt/${prompt.name}`, description: `Prompt: ${prompt.name}`, mimeType: 'application/json' };
  return {
    ...prompt,
    ...listed(prompt, engine, offer, 'get'),
    async get(args, ctx) {
      const paid = await payFor<PromptResult, InputRequired | OtherResult>(engine, {
        resource,
        offer,
        unpaid: 'Payment required to get this prompt',
        call: ['prompts/get', prompt.name, args],
        run: async (held) => prompt.get(args, held),
        charges: (answer): answer is PromptResult => !isInputRequired(answer) && !isOtherResult(answer),
      }, ctx);
      return entryAnswer(paid, ctx);
    },
  };
}
