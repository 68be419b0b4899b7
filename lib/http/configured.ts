/**
 * Configuration errors at start-up (docs/architecture.md rule 9):
 * `npm start` builds its handlers before it listens and exits with the message; a Vercel function builds its
 * handler on the first request of an instance, logs the message once, and answers every request with an error
 * that points at the log. The client never sees the detail: it may name variables and values.
 */

import { INTERNAL_ERROR } from '../protocol/errors.js';
import { errorReply } from './replies.js';

export type FetchHandler = (request: Request) => Promise<Response>;

/** What a misconfigured function tells every client. */
export const MISCONFIGURED = 'server misconfigured: see the function log';

/** One line for the operator: a TypeError is a configuration error naming its variable; anything else keeps its stack. */
export function describeStartupError(error: unknown): string {
  if (error instanceof TypeError) return `configuration error: ${error.message}`;
  return `start-up failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`;
}

function answerMisconfigured(): Promise<Response> {
  return Promise.resolve(errorReply(500, { code: INTERNAL_ERROR, message: MISCONFIGURED }));
}

/**
 * A function's handler built by `build` on its first request. If building throws, the error is logged once
 * for this instance and every request gets a JSON-RPC error (-32603, HTTP 500) saying only "see the log".
 */
export function createConfiguredHandler(build: () => FetchHandler): FetchHandler {
  let handler: FetchHandler | undefined;
  return (request) => {
    if (!handler) {
      try {
        handler = build();
      } catch (error) {
        console.error(`[agent-mcp] ${describeStartupError(error)}`);
        handler = answerMisconfigured;
      }
    }
    return handler(request);
  };
}
