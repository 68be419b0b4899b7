/**
 * A call's cancellation, whose AbortSignal is made only when something reads it. Most calls (lists, reads,
 * quick tools) never do, and on Node 20 making an AbortSignal, or combining two with AbortSignal.any, costs
 * more than the rest of such a call (docs/performance.md "Where the code's shape comes from"). The call's own work hears of a
 * cancellation through `onCancel`, and a cancellation linked to another (the request's, the call's, the task's,
 * the turn's budget) listens to it the same way, so a chain of them makes no AbortSignal until an API that takes
 * one (fetch) reads the last; a chat call with the demo agent makes none.
 */

/** What a call's work sees of its cancellation; none of it but `signal` makes an AbortSignal. */
export interface CancelView {
  readonly cancelled: boolean;
  /** Why, once cancelled. */
  readonly reason: unknown;
  /** Calls `listener` once when cancelled, at once when it already is; returns what stops it listening. */
  onCancel(listener: (reason: unknown) => void): () => void;
  /** For an API that takes an AbortSignal; made when first read. */
  readonly signal: AbortSignal;
}

/**
 * What cancels a call: a signal, how to get one when first needed (e.g. `() => request.signal`), or another
 * cancellation. A signal got that way is asked for when this cancellation's own signal is read, or, for a listener, on
 * the next turn of the event loop: a request's signal costs an adapter an AbortController and a listener on the
 * socket, and a call over within the turn it started in never needs it. A client
 * gone before then is seen then, its signal aborted.
 */
export type SignalSource = AbortSignal | (() => AbortSignal) | CancelView;

export const signalOf = (source: SignalSource): AbortSignal =>
  (typeof source === 'function' ? source() : source instanceof AbortSignal ? source : source.signal);

const ignore = () => undefined;
const ONCE = { once: true } as const;

type Listener = ((reason: unknown) => void) | Cancellation;

export class Cancellation implements CancelView {
  #controller: AbortController | undefined;
  #cancelled = false;
  #reason: unknown;
  /** What cancels this one too, until it is listened to (then `#parent`) or disposed of. */
  #linked: SignalSource | undefined;
  /**
   * What this one listens to: a cancellation that holds it as a listener, a signal that holds `#onAbort`, how to stop
   * listening to a view, or the turn of the event loop that will ask for a signal.
   */
  #parent: Cancellation | AbortSignal | (() => void) | NodeJS.Immediate | undefined;
  /**
   * Its listener on a linked signal, a function made as it links and kept here once added. Written so on purpose: on
   * Node 22 and 24 this cancellation as an EventListener object, a closure that removes the listener, or the listener
   * stored here before it was added, each left the listener, and the call it cancels, to a full collection rather
   * than the young generation's (measured, not traced to its cause; test/agent/upstream/young-garbage.test.ts
   * holds it). The measurements are in docs/performance.md "Issue 22 round 6: what a proxy's hop costs, where the tail goes, and a listener that promoted every call".
   */
  #onAbort: (() => void) | undefined;
  #listeners: Listener[] | undefined;

  /** `linked`: what cancels this call too (the request's signal, the transport's, an enclosing call's cancellation). */
  constructor(linked?: SignalSource) {
    this.#linked = linked;
  }

  get cancelled(): boolean {
    if (!this.#cancelled && this.#linked) this.#peek();
    return this.#cancelled;
  }

  get reason(): unknown {
    return this.cancelled ? this.#reason : undefined;
  }

  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = (this.#controller = new AbortController());
    this.#link(true);
    if (this.#cancelled) controller.abort(this.#reason);
    return controller.signal;
  }

  onCancel(listener: (reason: unknown) => void): () => void {
    if (!this.#listen(listener)) {
      listener(this.#reason);
      return ignore;
    }
    return () => this.#unlisten(listener);
  }

  cancel(reason: unknown): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#reason = reason;
    this.dispose();
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        if (typeof listener === 'function') listener(reason);
        else listener.cancel(reason);
      } catch (error) {
        // As an AbortSignal's listener would: the others still run, the error is the process's.
        process.nextTick(() => { throw error; });
      }
    }
  }

  /** Stops listening to what is linked, which may outlive the call (an in-process transport's signal); for good. */
  dispose(): void {
    this.#linked = undefined;
    const parent = this.#parent;
    if (parent === undefined) return;
    this.#parent = undefined;
    if (parent instanceof Cancellation) parent.#unlisten(this);
    else if (parent instanceof AbortSignal) parent.removeEventListener('abort', this.#onAbort!);
    else if (typeof parent === 'function') parent();
    else clearImmediate(parent);
  }

  /** Adds a listener, linking first; false when already cancelled (then nothing is added). */
  #listen(listener: Listener): boolean {
    this.#link();
    if (this.#cancelled) return false;
    (this.#listeners ??= []).push(listener);
    return true;
  }

  #unlisten(listener: Listener): void {
    const listeners = this.#listeners;
    const at = listeners ? listeners.indexOf(listener) : -1;
    if (at < 0) return;
    listeners!.splice(at, 1);
    // Nobody listens any more: the turn that would ask for the signal is called off, so it holds nothing of the call
    // (work that never yields to the event loop, an in-process client's, would otherwise pile them up).
    const parent = this.#parent;
    if (listeners!.length === 0 && !this.#controller && parent !== undefined && !(parent instanceof Cancellation) && !(parent instanceof AbortSignal) && typeof parent !== 'function') {
      clearImmediate(parent);
      this.#parent = undefined;
    }
  }

  /** Starts listening to what is linked, once; a signal to be asked for, `now` or on the next turn (SignalSource). */
  #link(now = false): void {
    const source = this.#linked;
    if (!source || this.#cancelled) return;
    if (typeof source === 'function' && !now) {
      this.#parent ??= setImmediate(() => {
        this.#parent = undefined;
        if (this.#listeners?.length || this.#controller) this.#link(true);
      });
      return;
    }
    if (this.#parent !== undefined) clearImmediate(this.#parent as NodeJS.Immediate);
    this.#parent = undefined;
    this.#linked = undefined;
    if (source instanceof Cancellation) {
      if (source.#listen(this)) this.#parent = source;
      else this.cancel(source.#reason);
      return;
    }
    if (typeof source !== 'function' && !(source instanceof AbortSignal)) {
      const unlink = source.onCancel((reason) => this.cancel(reason));
      if (!this.#cancelled) this.#parent = unlink;
      return;
    }
    const signal = signalOf(source);
    if (signal.aborted) return this.cancel(signal.reason);
    const onAbort = () => this.cancel(signal.reason);
    signal.addEventListener('abort', onAbort, ONCE);
    this.#parent = signal;
    this.#onAbort = onAbort;
  }

  /** Whether what is linked was cancelled already, without listening to it. */
  #peek(): void {
    const source = this.#linked!;
    if (typeof source !== 'function' && !(source instanceof AbortSignal)) {
      if (source.cancelled) this.cancel(source.reason);
      return;
    }
    // A signal asked for now is the one listened to later.
    const signal = (this.#linked = signalOf(source));
    if (signal.aborted) this.cancel(signal.reason);
  }
}
