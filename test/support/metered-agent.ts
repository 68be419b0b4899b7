/**
 * Test support: an in-process agent that spends tokens the way an upstream agent's tool loop does. Each "model
 * request" starts through the call's budget (turn.modelCalls, as every format's request does) and reports its usage
 * to the call's meter (turn.usage) when it ends. The message says what to spend: `3x1000+500` is three model requests
 * of 1000 input and 500 output tokens each; `2xunknown` two requests whose usage is unknown. Its reply says how many
 * requests it made and what the call's meter counted.
 */

import { metered } from '../../lib/agent/budget.js';
import type { InProcessAgentDefinition } from '../../lib/agent/index.js';

const PLAN = /^(\d+)x(?:(\d+)\+(\d+)|unknown)$/;

export interface MeteredAgent {
  definition: InProcessAgentDefinition;
  /** Model requests started so far, across every call. */
  readonly started: number;
}

export function createMeteredAgent(id = 'metered', options: { delayMs?: number; tokenBudget?: string } = {}): MeteredAgent {
  let started = 0;
  const definition: InProcessAgentDefinition = {
    id,
    name: `Metered ${id}`,
    description: 'Spends the tokens its message names.',
    ...(options.tokenBudget ? { tokenBudget: options.tokenBudget } : {}),
    async *reply(turn) {
      const plan = PLAN.exec(turn.message.trim());
      if (!plan) throw new Error(`not a plan: ${turn.message}`);
      const usage = plan[2] === undefined ? undefined : { input: Number(plan[2]), output: Number(plan[3]) };
      // What this turn reported, as the call's meter summed it (an agent sees only its report channel).
      const total = { modelRequests: 0, input: 0, output: 0, unknownRequests: 0 };
      for (let i = 0; i < Number(plan[1]); i++) {
        yield* metered(turn.modelCalls, id, async function* () {
          started += 1;
          if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
          turn.usage!.record(usage);
          total.modelRequests += 1;
          if (usage) { total.input += usage.input; total.output += usage.output; } else total.unknownRequests += 1;
          return undefined;
        });
      }
      yield `${total.modelRequests} model requests: ${total.input} input and ${total.output} output tokens` +
        (total.unknownRequests ? `, ${total.unknownRequests} unknown` : '');
    },
  };
  return { definition, get started() { return started; } };
}
