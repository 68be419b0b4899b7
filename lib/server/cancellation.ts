/**
 * A call's cancellation, whose AbortSignal is made only when something reads it. Most calls (lists, reads,
 * quick tools) never do, and on Node 20 making an AbortSignal, or combining two with AbortSignal.any, costs
 * more than the rest of such a call (bench: ~10 µs of a ~50 µs tools/list).
 */

/** What cancels a call: a signal, or how to get one when first needed (e.g. `() => request.signal`). */
export type SignalSource = AbortSignal | (() => AbortSignal);

export const signalOf = (source: SignalSource): AbortSignal => (typeof source === 'function' ? source() : source);

export class Cancellation {
  #controller: AbortController | undefined;
  #cancelled = false;
  #reason: unknown;
  readonly #linked: SignalSource | undefined;
  #unlink: (() => void) | undefined;

  /** `linked`: a signal that cancels this call too (the request's, the transport's). */
  constructor(linked?: SignalSource) {
    this.#linked = linked;
  }

  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = (this.#controller = new AbortController());
    if (this.#cancelled) {
      controller.abort(this.#reason);
    } else if (this.#linked) {
      const linked = signalOf(this.#linked);
      if (linked.aborted) {
        this.cancel(linked.reason);
      } else {
        const onAbort = () => this.cancel(linked.reason);
        linked.addEventListener('abort', onAbort, { once: true });
        this.#unlink = () => linked.removeEventListener('abort', onAbort);
      }
    }
    return controller.signal;
  }

  cancel(reason: unknown): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.dispose();
  }

  /** Stops listening to the linked signal, which may outlive the call (an in-process transport's). */
  dispose(): void {
    this.#unlink?.();
    this.#unlink = undefined;
  }
}
