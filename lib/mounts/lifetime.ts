/**
 * A forwarded call's lifetime: it ends when the mount answers, when the caller cancels, or at the mount's
 * `maxCallMs`, whichever comes first. Everything the call sets off (its request to the mount, the questions it
 * relays to the caller) listens to `signal`, so nothing it started outlives it. Progress resets `callTimeoutMs`,
 * so without a total a tool that only reports progress would run forever.
 *
 * The total is a timer of ours rather than the client's `maxTotalTimeout`: that one is checked only when progress
 * arrives, and when it fires the client stops waiting without telling the mount, whose work goes on. Aborting the
 * request's signal makes the client send `notifications/cancelled` (or close the request's stream on 2026-07-28).
 */

import { createCountedWarning } from '../warn.js';

/** One line per mount-call that hit the bound (first at once, then at most once a minute with a count). */
const overTotal = createCountedWarning((mount, count) => `cancelled ${count} forwarded call(s) at their mount's maxCallMs (latest: mount ${mount})`);

export class CallLifetime {
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #caller: AbortSignal;
  readonly #onCallerGone: () => void;
  #expired = false;

  /** `caller`: the caller's cancellation (ctx.signal). */
  constructor(mount: string, maxCallMs: number, caller: AbortSignal) {
    this.#caller = caller;
    this.#onCallerGone = () => this.#end(caller.reason);
    this.#timer = setTimeout(() => {
      this.#expired = true;
      overTotal.note(mount);
      this.#end(new Error(`The call ran past its total bound of ${maxCallMs} ms (maxCallMs).`));
    }, maxCallMs);
    if (caller.aborted) this.#end(caller.reason);
    else caller.addEventListener('abort', this.#onCallerGone, { once: true });
  }

  /** Aborts when the call ends, for whatever reason. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when the call ended at `maxCallMs`. */
  get expired(): boolean {
    return this.#expired;
  }

  /** The call is over: whatever it set off and still waits stops waiting. */
  end(): void {
    this.#end(CALL_OVER);
  }

  #end(reason: unknown): void {
    clearTimeout(this.#timer);
    this.#caller.removeEventListener('abort', this.#onCallerGone);
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }
}

/** A fixed reason: aborting without one allocates a DOMException on every call. */
const CALL_OVER = new Error('The forwarded call is over.');
