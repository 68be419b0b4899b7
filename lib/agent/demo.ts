/**
 * The demo agent: an in-process agent that needs no network, so `npm start` works offline. It is labelled as
 * a demo wherever it speaks. It also shows the shape of an in-process agent: a function yielding text chunks.
 */

export interface AgentTurn {
  message: string;
  sessionId?: string;
  signal: AbortSignal;
}

export type InProcessAgent = (turn: AgentTurn) => AsyncIterable<string>;

export const DEMO_AGENT_ID = 'demo';

export const demoAgent: InProcessAgent = async function* demo({ message, signal }) {
  const words = `[demo agent] You said: "${message}". I am the offline demo agent of agent-mcp; set AGENT_URL to put your own agent here.`.split(' ');
  for (const [i, word] of words.entries()) {
    if (signal.aborted) return;
    yield i === 0 ? word : ` ${word}`;
  }
};
