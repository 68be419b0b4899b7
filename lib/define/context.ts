/**
 * What a deployment's own tools, resources and prompts see of a request: who calls, its cancellation, the
 * ways back to the client, the store, and a store key private to the caller. A narrow, stable face on the
 * dispatcher's RequestContext, which stays reachable as `request` for what this leaves out.
 */

import type { Era, LogLevel } from '../protocol/methods.js';
import { ownStateKey } from '../server/caller.js';
import type { Principal, RequestContext } from '../server/context.js';
import type { Store } from '../store/types.js';

export interface HandlerContext {
  /** The verified caller (bearer token, or in-process props); undefined when auth is off. */
  readonly principal?: Principal;
  /** Aborts when the client cancels the call or goes away. */
  readonly signal: AbortSignal;
  /** The deployment's store: Upstash when configured, memory otherwise. Every key must expire. */
  readonly store: Store;
  readonly era: Era;
  /** Reports progress when the client asked for it; a no-op otherwise. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log notification when the client asked for logs at this level. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * A store key for state private to this caller under `parts` (the verified principal; else, on the 2025
   * wire, the session this server issued), or undefined for a caller with no identity to keep it under.
   */
  stateKey(...parts: string[]): string | undefined;
  /** The dispatcher's full context of this request. */
  readonly request: RequestContext;
}

/** The handler's view of `ctx`; `signal` is read on use, so a handler that never reads it never makes it. */
export function handlerContext(ctx: RequestContext): HandlerContext {
  return {
    principal: ctx.principal,
    get signal() { return ctx.signal; },
    store: ctx.store,
    era: ctx.era,
    progress: ctx.progress,
    log: ctx.log,
    stateKey: (...parts) => {
      const owner = ctx.caller.stateOwner;
      return owner === undefined ? undefined : ownStateKey(owner, parts);
    },
    request: ctx,
  };
}
