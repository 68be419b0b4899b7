/**
 * `ctx.elicit` of a deployment's own tools: one question to the user, on either wire, through what the
 * dispatcher already has. On the 2025 wire the request goes out on the call's stream and the answer comes
 * back by POST (lib/server/client-requests.ts). On the 2026-07-28 wire the call ends with `input_required`
 * (MRTR, SEP-2322) and the client calls again with the answer: the tool runs again from the top, and each
 * question already answered returns its answer at once. Answers of earlier rounds ride in the signed
 * requestState, since a client sends back only the answers to the latest round.
 */

import type * as z from 'zod';
import { isObject } from '../protocol/jsonrpc.js';
import type { RequestContext } from '../server/context.js';
import { toJsonSchema } from '../server/create-registry.js';
import { inputRequired, type InputRequired } from '../server/registry.js';
import { ToolError } from './errors.js';

const ELICIT = 'elicitation/create';

export type Elicited<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

export type Elicit = <S extends z.ZodObject>(message: string, schema: S) => Promise<Elicited<z.output<S>>>;

/** Thrown by `elicit` on the modern wire to end the round; the tool wrapper turns it into `input_required`. */
export class InputPending {
  constructor(readonly key: string, readonly params: Record<string, unknown>) {}
}

/** The answers this call has collected so far, carried in the signed requestState between rounds. */
interface ElicitState {
  answers: Record<string, unknown>;
}

export interface Elicitation {
  elicit: Elicit;
  /** The `input_required` that asks the pending question and carries the answers so far. */
  ask(pending: InputPending): InputRequired;
}

export function createElicitation(ctx: RequestContext): Elicitation {
  const state = ctx.requestState as Partial<ElicitState> | undefined;
  const earlier = isObject(state) && isObject(state.answers) ? state.answers : {};
  const answers: Record<string, unknown> = { ...earlier, ...ctx.inputResponses };
  let asked = 0;

  async function elicit<S extends z.ZodObject>(message: string, schema: S): Promise<Elicited<z.output<S>>> {
    const params = { message, requestedSchema: toJsonSchema(schema, 'input') };
    let answer: unknown;
    if (ctx.era === 'modern') {
      if (!ctx.supports('elicitation')) throw new ToolError('This tool asks you a question, and your client does not support elicitation.');
      const key = `elicit-${asked++}`;
      answer = answers[key];
      if (!isObject(answer) || typeof answer.action !== 'string') throw new InputPending(key, params);
    } else {
      try {
        answer = await ctx.requestClient(ELICIT, params);
      } catch (error) {
        throw new ToolError(`This tool asks you a question, and it could not be asked: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return readAnswer(answer, schema);
  }

  return {
    elicit,
    ask: (pending) => inputRequired({ [pending.key]: { method: ELICIT, params: pending.params } }, { answers } satisfies ElicitState),
  };
}

function readAnswer<S extends z.ZodObject>(answer: unknown, schema: S): Elicited<z.output<S>> {
  const action = isObject(answer) ? answer.action : undefined;
  if (action === 'decline' || action === 'cancel') return { action };
  if (action !== 'accept') throw new ToolError('The client answered the question with something that is not an elicitation result.');
  const parsed = schema.safeParse((answer as { content?: unknown }).content ?? {});
  if (!parsed.success) throw new ToolError(`The answer does not fit the question: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return { action, content: parsed.data };
}
