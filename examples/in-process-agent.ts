/**
 * An in-process agent: a function that yields the reply's text in chunks (the demo agent, lib/agent/demo.ts, is
 * one). It is served next to the agents configured in the environment, and everything the environment
 * configures still applies to it (x402 with X402_PAY_TO, scopes, the store). To serve it, list it in
 * tools/index.ts, as examples/tools/index.ts does:
 *
 *   agents: [shouter],
 */

import type { InProcessAgentDefinition } from '../lib/define/index.js';
import type { InProcessAgent } from '../lib/agent/types.js';

/** Repeats the message in capitals, one word at a time, and reads the earlier turns of its session. */
const shout: InProcessAgent = async function* ({ message, history, signal }) {
  const words = message.toUpperCase().split(' ');
  for (const [i, word] of words.entries()) {
    if (signal.aborted) return;
    yield i === 0 ? word : ` ${word}`;
  }
  if (history.length > 0) yield ` (turn ${history.length / 2 + 1})`;
};

export const shouter: InProcessAgentDefinition = {
  id: 'shout',
  name: 'Shouter',
  description: 'Repeats you, loudly.',
  reply: shout,
};

/**
 * An agent that asks before it answers: `turn.ask.elicit` asks the user, `turn.ask.sample` the client's model, on
 * either era (docs/agents.md "Ask the user"). It asks first and yields after, since on the 2026-07-28 wire a
 * question ends the run and the agent runs again once the client answers.
 */
export const greeter: InProcessAgentDefinition = {
  id: 'greet',
  name: 'Greeter',
  description: 'Asks your name, then greets you.',
  reply: async function* ({ ask }) {
    const answer = await ask.elicit({
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    yield answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}!` : 'Hello, stranger!';
  },
};
