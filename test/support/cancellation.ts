/**
 * Test support: a tool that waits until its call is cancelled and records what it observed, so a test can
 * see from the server side that a client's cancellation reached the running call's `ctx.signal`.
 */

import * as z from 'zod';
import type { ToolDefinition } from '../../lib/server/registry.js';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export const WAIT_FOR_CANCEL = 'wait_for_cancel';

/**
 * `wait_for_cancel({ key, openStream })`: with `openStream` it first reports progress, so its reply is
 * already an open SSE stream when the client cancels; then it waits for `ctx.signal` to abort.
 * Calls are told apart by `key`.
 */
export function cancellationProbe() {
  const calls = new Map<string, { started: Deferred<void>; aborted: Deferred<unknown> }>();
  const call = (key: string) => {
    let entry = calls.get(key);
    if (!entry) calls.set(key, (entry = { started: deferred(), aborted: deferred() }));
    return entry;
  };

  const tool: ToolDefinition<any> = {
    name: WAIT_FOR_CANCEL,
    description: 'Waits until the call is cancelled and records the abort its context observed.',
    input: z.object({ key: z.string(), openStream: z.boolean().optional() }),
    async run({ key, openStream }: { key: string; openStream?: boolean }, ctx) {
      const entry = call(key);
      if (openStream) ctx.progress(1, undefined, 'waiting for cancellation');
      entry.started.resolve();
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) return resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      entry.aborted.resolve(ctx.signal.reason);
      return { content: [{ type: 'text', text: 'The call observed its cancellation.' }] };
    },
  };

  return {
    tool,
    /** Resolves once the call with `key` is running on the server. */
    started: (key: string) => call(key).started.promise,
    /** Resolves with the abort reason once the call's `ctx.signal` aborted. */
    aborted: (key: string) => call(key).aborted.promise,
  };
}
