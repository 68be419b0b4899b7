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

/**
 * The reply is one chunk: an agent yields text as it has it (a model's stream, chunk by chunk), and this one has it
 * all at once. Yielding it word by word cost each call a few promises per word, and changed nothing a client sees:
 * progress sends what arrived within 100 ms as one notification (progress.ts).
 */
export const demoAgent: InProcessAgent = async function* demo({ message, history }) {
  const turn = Math.floor(history.length / 2) + 1;
  yield `[demo agent] Turn ${turn}. You said: "${message}". I am the offline demo agent of agent-mcp; set AGENT_URL to put your own agent here.`;
};

/** The tools an in-process agent could call, as an in-process MCP client on the app lists them. */
export type ListTools = () => Promise<Array<{ name: string; description?: string }>>;

const ASKS_FOR_TOOLS = /\b(what|which|list)\b.*\btools?\b/i;

/**
 * The demo agent that, asked which tools it can call, lists them through `listTools` (an in-process MCP
 * client on the app, mounted servers' tools included); otherwise it echoes like `demoAgent`.
 */
export function createDemoAgent(listTools: ListTools): InProcessAgent {
  // Not a generator itself: one delegating to demoAgent was one more step per chunk of every reply.
  return (turn) => (ASKS_FOR_TOOLS.test(turn.message) ? listing(listTools) : demoAgent(turn));
}

async function* listing(listTools: ListTools): AsyncGenerator<string> {
  const tools = await listTools();
  yield `[demo agent] Through an in-process MCP client on this server I could call ${tools.length} tool(s):`;
  for (const tool of tools) yield `\n- ${tool.name}${tool.description ? `: ${summarize(tool.description)}` : ''}`;
}

function summarize(description: string): string {
  const line = description.split('\n', 1)[0]!;
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
