/**
 * The demo agent: an in-process agent that needs no network, so `npm start` works offline. It says it is a
 * demo wherever it speaks. It is also the example of an in-process agent: a function yielding text chunks.
 */

import type { InProcessAgent } from './types.js';

export const DEMO_AGENT = {
  id: 'demo',
  name: 'Demo agent',
  description: 'An offline demo agent that echoes your message. Set AGENT_URL to put your own agent here.',
};

export const demoAgent: InProcessAgent = async function* demo({ message, history }) {
  const turn = Math.floor(history.length / 2) + 1;
  const words = `[demo agent] Turn ${turn}. You said: "${message}". I am the offline demo agent of agent-mcp; set AGENT_URL to put your own agent here.`
    .split(' ');
  for (const [i, word] of words.entries()) yield i === 0 ? word : ` ${word}`;
};
