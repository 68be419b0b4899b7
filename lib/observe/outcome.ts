/**
 * How one MCP message ended, in the values of `vercel.rpc.outcome` and its `error.type`, as mcp-handler 2.4.0 gives
 * them (dist/index.mjs, src/telemetry/message-spans.ts `outcomeOf` and attributes.ts `rpcErrorOutcome`), so Vercel's
 * MCP observability reads agent-mcp's spans as it reads a plain mcp-handler server's. The JSON-RPC codes mcp-handler
 * never sends (ours, for refusals and scopes) are classified here the way its own codes of the same kind are.
 * On the start path, since it names the protocol's codes; only a registered OpenTelemetry SDK calls it.
 */

import {
  HEADER_MISMATCH, INSUFFICIENT_SCOPE, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY,
  PARSE_ERROR, PAYMENT_REQUIRED, RATE_LIMITED, RESOURCE_NOT_FOUND_LEGACY, SESSION_NOT_FOUND, TRANSPORT_ERROR, UNSUPPORTED_PROTOCOL_VERSION,
  URL_ELICITATION_REQUIRED,
} from '../protocol/errors.js';
import { isObject, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { REFUSAL, type RefusalReason, type ToolFailure } from '../server/context.js';

export type RpcOutcome =
  | 'success' | 'request_error' | 'execution_failure' | 'input_required' | ToolFailure['outcome'];

export interface Ended {
  outcome: RpcOutcome;
  /** A short code for a failure (`invalid_request`, `not_found`, `rate_limited`, `internal_error`…). */
  errorType?: string;
}

/** The codes a caller's request errors carry, by the kind of error (mcp-handler's REQUEST_ERRORS, then ours). */
const REQUEST_ERRORS: ReadonlyMap<number, string> = new Map([
  [PARSE_ERROR, 'invalid_request'],
  [INVALID_REQUEST, 'invalid_request'],
  [METHOD_NOT_FOUND, 'not_found'],
  [INVALID_PARAMS, 'invalid_request'],
  [RESOURCE_NOT_FOUND_LEGACY, 'not_found'],
  [MISSING_REQUIRED_CLIENT_CAPABILITY, 'invalid_request'],
  [UNSUPPORTED_PROTOCOL_VERSION, 'invalid_request'],
  // (mcp-handler also maps the codes of its draft MCP Events, which agent-mcp does not serve.)
  // agent-mcp's own: a refused transport step, a header that contradicts the body, an unknown session, a rate
  // limit, a missing scope, a paid read or get without its payment.
  [TRANSPORT_ERROR, 'invalid_request'],
  [HEADER_MISMATCH, 'invalid_request'],
  [SESSION_NOT_FOUND, 'not_found'],
  [RATE_LIMITED, 'rate_limited'],
  [INSUFFICIENT_SCOPE, 'forbidden'],
  [PAYMENT_REQUIRED, 'payment_required'],
]);

/** The texts of a tool result that failed its input schema (ours: lib/server/methods/tools.ts; the SDK's). */
const INPUT_VALIDATION_PREFIXES = ['Input validation error:', 'Invalid arguments for tool'];

const INTERNAL: Ended = { outcome: 'execution_failure', errorType: 'internal_error' };

/**
 * A call sent back to pay (x402), on any binding: the caller's request lacked a payment it could make, as a read's
 * PAYMENT_REQUIRED error says. mcp-handler's outcomes are a closed set the dashboard reads, so it is one of them with
 * an error type of its own, never `success` (the extension's `payment_required` result is no error on the wire).
 */
const PAYMENT_REFUSED: Ended = { outcome: 'request_error', errorType: REQUEST_ERRORS.get(PAYMENT_REQUIRED)! };

/** A JSON-RPC error's outcome: a caller's request error by its code, anything else the server's failure. */
function errorOutcome(code: number): Ended {
  if (code === URL_ELICITATION_REQUIRED) return { outcome: 'input_required' };
  const errorType = REQUEST_ERRORS.get(code);
  return errorType ? { outcome: 'request_error', errorType } : INTERNAL;
}

/** An HTTP refusal the call never reached the dispatcher past (a full share of calls, an unusable payment header). */
function refusalOutcome(status: number): Ended {
  if (status >= 500) return INTERNAL;
  if (status < 400) return { outcome: 'success' };
  const errorType = status === 429 ? 'rate_limited' : status === 403 ? 'forbidden' : status === 404 ? 'not_found' : 'invalid_request';
  return { outcome: 'request_error', errorType };
}

function isInputValidationError(content: unknown): boolean {
  const first = Array.isArray(content) ? content[0] : undefined;
  const text = isObject(first) && first.type === 'text' ? first.text : undefined;
  return typeof text === 'string' && INPUT_VALIDATION_PREFIXES.some((prefix) => text.startsWith(prefix));
}

export interface Answer {
  method: string;
  /** True for a request (it has an id); a notification's answer is none. */
  isRequest: boolean;
  /** Set once the dispatcher answered: its reply, undefined when it answered nothing (a notification; a cancelled call). */
  answered?: { reply: JsonRpcResponse | undefined };
  /** Why an isError result of tools/call failed, as the tool said (ToolFailure). */
  toolFailure?: ToolFailure;
  /** Why the call was refused before it ran, when it was (CallObservation.noteRefusal). */
  refusal?: RefusalReason;
  /** A failure no step turned into a reply (a 5xx). */
  failed: boolean;
  /** The HTTP status the request was answered with. */
  status: number;
}

/** How the message ended. */
export function outcomeOf(answer: Answer): Ended {
  if (answer.failed) return INTERNAL;
  if (!answer.answered) return refusalOutcome(answer.status);
  if (answer.refusal === REFUSAL.payment) return PAYMENT_REFUSED;
  const { reply } = answer.answered;
  // The dispatcher answers nothing to a notification, and to a call the client cancelled.
  if (!reply) return answer.isRequest ? { outcome: 'request_error', errorType: 'cancelled' } : { outcome: 'success' };
  if ('error' in reply) return errorOutcome(reply.error.code);
  const result = isObject(reply.result) ? reply.result : {};
  if (result.resultType === 'input_required') return { outcome: 'input_required' };
  if (answer.method !== 'tools/call' || result.isError !== true) return { outcome: 'success' };
  if (answer.toolFailure) return answer.toolFailure;
  return isInputValidationError(result.content) ? { outcome: 'request_error', errorType: 'invalid_request' } : INTERNAL;
}

/** True when the reply shows the call reached its tool or prompt (mcp-handler names the target only then). */
export function reachedTarget(answer: Answer): boolean {
  const reply = answer.answered?.reply;
  return reply !== undefined && ('result' in reply || reply.error.code === URL_ELICITATION_REQUIRED);
}
