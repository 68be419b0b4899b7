/** Agents as resources (`agent://{id}`): a profile clients can read to discover who they can talk to. */

import type { ResourceDefinition } from '../server/registry.js';
import type { Agent } from './types.js';
import { uptoPrices } from '../pay/with-payment.js';

/** A paid agent with token prices of its own says them (`prices`). `scopes`: what reaching the agents takes (the chat tool's); absent means the server's default. */
export function agentResources(agents: Agent[], scopes?: string[]): ResourceDefinition[] {
  return agents.map(({ profile, prices }) => {
    const uri = `agent://${profile.id}`;
    return {
      uri,
      ...(scopes ? { scopes } : {}),
      name: profile.id,
      title: profile.name,
      description: profile.description,
      mimeType: 'application/json',
      read: () => [{ uri, mimeType: 'application/json', text: JSON.stringify({ ...profile, ...(prices ? { prices: uptoPrices(prices) } : {}) }) }],
    };
  });
}
