/**
 * What a chat_with_agent call costs, from its `agent_id`: the agent's own token prices where it sets them (AGENTS'
 * `priceInput`, `priceOutput`, `maxPrice`), else the deployment's (X402_PRICE_INPUT/OUTPUT, X402_MAX_PRICE). The
 * fixed `exact` price stays X402_PRICE. One place, so `accepts`, verification and settlement agree.
 */

import type { Agent } from '../agent/types.js';
import type { Offer } from './price.js';
import type { OfferOf } from './with-payment.js';

export function agentOffers(agents: readonly Agent[], offer: Offer): OfferOf {
  const byId = new Map(agents.flatMap((agent) => (agent.prices ? [[agent.profile.id, { price: offer.price, tokens: agent.prices }] as const] : [])));
  // The chat tool answers a call without agent_id with its only agent (lib/agent/chat-tool.ts).
  const only = agents.length === 1 ? agents[0]!.profile.id : undefined;
  return (args) => byId.get(typeof args.agent_id === 'string' ? args.agent_id : only ?? '') ?? offer;
}
