/**
 * `turn.ask`: an in-process agent asks the user (elicitation) or the client's model (sampling) mid-answer, with
 * the same code on both eras.
 * - 2025 wire: the question goes out on the call's stream now and the answer comes back (RequestContext.requestClient).
 * - 2026-07-28 wire (MRTR): there is no stream to wait on, so an unanswered question ends this run of the agent
 *   and the chat tool answers `input_required`; the client retries with the answer and the agent runs again from
 *   the start, this time finding the answer where it asks. Answers from earlier rounds ride in the requestState,
 *   each under a digest of the question it answers: a run that asks something else under the same key is asked anew.
 *   The dispatcher signs that state and binds it to the caller and to the call's arguments (agent, message,
 *   session), so an answer can never be replayed into another conversation or message.
 */

import { allowsClientRequest, askableCapabilities, ELICITATION_CREATE, SAMPLING_CREATE_MESSAGE } from '../protocol/client-capabilities.js';
import { isObject } from '../protocol/jsonrpc.js';
import { sha256Hex } from '../digest.js';
import type { RequestContext } from '../server/context.js';
import { canonicalJson } from '../server/request-state.js';
import { AgentError, type Ask, type ElicitAnswer, type SampleAnswer } from './types.js';

/** Thrown through the agent on the modern wire when a question has no answer yet; the chat tool turns it into `input_required`. */
export class InputNeeded extends Error {
  constructor(readonly key: string, readonly method: string, readonly params: Record<string, unknown>, readonly state: AskState) {
    super(`The agent is waiting for the answer to ${key}.`);
    this.name = 'InputNeeded';
  }
}

/** What rides in the signed requestState between rounds. */
export interface AskState {
  /** The conversation the first round started, so every round continues the same one. */
  conversation?: string;
  /** Answers so far, each with the digest of its question. */
  answers: Record<string, { q: string; a: Record<string, unknown> }>;
  /** The questions of the last `input_required`, by key: their answers arrive as `inputResponses`. */
  pending?: Record<string, string>;
}

/** The state a call carries in, with the answers to the last round's questions moved in beside the earlier ones. */
export function readAskState(ctx: RequestContext): AskState {
  if (ctx.requestState === undefined) return FIRST_ROUND;
  const carried = isObject(ctx.requestState) ? (ctx.requestState as Partial<AskState>) : {};
  const answers = { ...(isObject(carried.answers) ? carried.answers : {}) } as AskState['answers'];
  for (const [key, q] of Object.entries(isObject(carried.pending) ? carried.pending : {})) {
    const a = ctx.inputResponses[key];
    if (typeof q === 'string' && isObject(a)) answers[key] = { q, a };
  }
  return { ...(typeof carried.conversation === 'string' ? { conversation: carried.conversation } : {}), answers };
}

/** The state of a call that carries none (every legacy call, a first round): read, never written. */
const FIRST_ROUND: AskState = Object.freeze({ answers: Object.freeze({}) });

const CAPABILITY = { [ELICITATION_CREATE]: 'elicitation', [SAMPLING_CREATE_MESSAGE]: 'sampling' } as const;

/**
 * `turn`: the signal of the turn that asks (the caller's cancellation and AGENT_TURN_TIMEOUT_MS), read only when a
 * question waits: a 2025-wire question waits no longer than its turn, whichever way the turn ends.
 */
export function createAsk(ctx: RequestContext, state: AskState, turn: () => AbortSignal): Ask {
  let asked = 0;
  async function ask(method: keyof typeof CAPABILITY, params: Record<string, unknown>, key = `q${++asked}`): Promise<Record<string, unknown>> {
    if (!allowsClientRequest(askableCapabilities(ctx.clientCapabilities), method, params)) {
      throw new AgentError(`The agent needs to ask the client (${method}), but the client did not declare the ${CAPABILITY[method]} capability.`);
    }
    if (ctx.era === 'legacy') {
      try {
        return await ctx.requestClient(method, params, { signal: turn() });
      } catch (error) {
        throw new AgentError(`The agent asked the client (${method}) and got no answer: ${(error as Error).message}`);
      }
    }
    const q = await sha256Hex(canonicalJson({ method, params }));
    const answered = state.answers[key];
    if (answered?.q === q) return answered.a;
    throw new InputNeeded(key, method, params, { ...state, pending: { [key]: q } });
  }
  return {
    elicit: (request, key) => ask(ELICITATION_CREATE, { ...request }, key) as Promise<unknown> as Promise<ElicitAnswer>,
    sample: (request, key) => ask(SAMPLING_CREATE_MESSAGE, { ...request }, key) as Promise<unknown> as Promise<SampleAnswer>,
  };
}
