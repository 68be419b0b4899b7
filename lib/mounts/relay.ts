/**
 * Questions a mounted server puts to its client during a forwarded call (elicitation, sampling, roots), relayed
 * to our caller: on the 2025 wire pushed on the call's stream and answered by a POST that may reach any instance
 * (RequestContext.requestClient). The mounted server is never told more than the caller declared, and anything
 * that cannot reach the caller gets an error that says why, never a wait. One call relays at most the mount's
 * `maxQuestions`, and a question still waiting for its answer stops waiting when the mount withdraws it or the
 * call ends: a server that asks thousands of questions and moves on leaves nothing behind.
 */

import { allowsClientRequest, askableCapabilities, CAPABILITY_BY_CLIENT_METHOD, type ClientCapabilities } from '../protocol/client-capabilities.js';
import { INVALID_REQUEST, METHOD_NOT_FOUND, McpError } from '../protocol/errors.js';
import type { RequestContext } from '../server/context.js';
import { createCountedWarning } from '../warn.js';

const overQuestions = createCountedWarning((mount, count) => `refused the questions of ${count} forwarded call(s) past their mount's maxQuestions (latest: mount ${mount})`);

/** Answers a request the mounted server sends its client during a call: the result, or a thrown error with a JSON-RPC code. */
export type AnswerServer = (method: string, params: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;

export interface Relay {
  /** What the caller declared that a server may ask of it; the mounted server is told exactly this. */
  capabilities: ClientCapabilities;
  /** Asks the caller on the mounted server's behalf, or throws the refusal. */
  answer: AnswerServer;
  /** Why a question was refused during this call, if one was: the caller should read it, not only the mount. */
  readonly refusal: string | undefined;
  /** Set once the call asked more than `maxQuestions`: the caller reads it whatever the mount answers. */
  readonly overBound: string | undefined;
}

/** The text of a refusal for a question the caller did not declare it can answer (also the shared connection's). */
export function refusalText(mount: string, method: string, capability: string): string {
  return `Mount ${mount} asked for ${method}, but the caller of this call did not declare the ${capability} capability, so agent-mcp cannot ask it.`;
}

/** A 2025-wire question for a 2026-07-28 caller: nothing could carry the answer back to the instance that waits. */
export function statelessText(mount: string, method: string): string {
  return `Mount ${mount} asked for ${method} over the 2025 wire, which a 2026-07-28 caller cannot answer statelessly ` +
    '(the mounted server waits on a live stream; the caller answers with a new request that may reach another instance). ' +
    'Mount a server that speaks 2026-07-28 with era "auto", or call over 2025-11-25.';
}

/** The text of the refusal of a question past the bound. */
export function overBoundText(mount: string, maxQuestions: number): string {
  return `Mount ${mount} asked more than ${maxQuestions} question${maxQuestions === 1 ? '' : 's'} in one call (its maxQuestions setting); ` +
    `agent-mcp relayed the first ${maxQuestions} to the caller and refused the rest.`;
}

/**
 * `call`: aborts when the forwarded call ends (lib/mounts/lifetime.ts); a question asked after that is refused,
 * and one still waiting stops waiting.
 */
export function createRelay(mount: { name: string; maxQuestions: number }, ctx: RequestContext, call: AbortSignal): Relay {
  const capabilities = askableCapabilities(ctx.clientCapabilities);
  let refusal: string | undefined;
  let overBound: string | undefined;
  let asked = 0;
  // -32601 is what a client without the capability answers; the era case and the bound are the request being
  // impossible here.
  const refuse = (code: number, text: string): never => {
    refusal ??= text;
    throw new McpError(code, text);
  };
  return {
    capabilities,
    get refusal() {
      return refusal;
    },
    get overBound() {
      return overBound;
    },
    async answer(method, params, withdrawn) {
      const capability = CAPABILITY_BY_CLIENT_METHOD[method];
      if (capability === undefined) throw new McpError(METHOD_NOT_FOUND, `Method not found: ${method}`);
      if (!allowsClientRequest(capabilities, method, params)) refuse(METHOD_NOT_FOUND, refusalText(mount.name, method, capability));
      if (ctx.era === 'modern') refuse(INVALID_REQUEST, statelessText(mount.name, method));
      if (call.aborted) refuse(INVALID_REQUEST, `Mount ${mount.name} asked for ${method} after its call ended.`);
      if (++asked > mount.maxQuestions) {
        if (overBound === undefined) overQuestions.note(mount.name);
        refuse(INVALID_REQUEST, (overBound ??= overBoundText(mount.name, mount.maxQuestions)));
      }
      return ctx.requestClient(method, params, { signal: AbortSignal.any([withdrawn, call]) });
    },
  };
}
