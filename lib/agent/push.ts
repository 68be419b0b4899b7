/**
 * A reply pushed rather than pulled (issue 48): the format calls a synchronous sink once per piece of text, from the
 * upstream socket's `data` handler, and the turn holds one promise for the whole request, none per chunk. Every layer
 * of async generators a chunk passed (the read, the format's request, `metered`, the tool loop, the turn's
 * `for await`) made a promise, a result object and a resumption of its own for each chunk.
 *
 * A pushed reply is still an AsyncIterable<string>, the contract of every agent (types.ts Agent.reply): `ask` pushes
 * (`pushTo`), anything else may iterate it as before, through a queue.
 */

/** Where a reply's text goes as it is read: called synchronously, once per piece, never with an empty one. */
export type OnText = (chunk: string) => void;

export interface PushedReply extends AsyncIterable<string> {
  /** Runs the reply, each piece of text to `onText`; settles once, when the reply has ended or failed. */
  pushTo(onText: OnText): Promise<void>;
}

/** True for a reply that can be pushed (pushedReply), false for any other AsyncIterable (an in-process agent's). */
export function isPushed(reply: AsyncIterable<string>): reply is PushedReply {
  return reply instanceof Pushed;
}

/** `run` as an agent's reply: pushed when the turn pushes, iterated otherwise. */
export function pushedReply(run: (onText: OnText) => Promise<unknown>): PushedReply {
  return new Pushed(run);
}

/**
 * A generator's text pushed to `onText`, its return value returned: how a format that reads its reply with generators
 * (a2a, ai-sdk) joins a pushed turn or a tool loop.
 */
export async function drive<T>(generator: AsyncGenerator<string, T>, onText: OnText): Promise<T> {
  for (;;) {
    const step = await generator.next();
    if (step.done) return step.value;
    if (step.value) onText(step.value);
  }
}

class Pushed implements PushedReply {
  constructor(readonly run: (onText: OnText) => Promise<unknown>) {}

  async pushTo(onText: OnText): Promise<void> {
    await this.run(onText);
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return new PushedIterator(this.run);
  }
}

/** Told to a run whose reader stopped iterating: its next piece of text ends it (its read is abandoned). */
const STOPPED = new Error('The reply was no longer read.');

/**
 * A pushed run read by `for await`: what it pushes is queued until read (it is bounded by what the run may read,
 * AGENT_MAX_REPLY_BYTES). A reader that stops (`return`) is not waited for: the run ends at its next piece of text,
 * or when its upstream ends or falls silent; what it does after is not read.
 */
class PushedIterator implements AsyncIterator<string> {
  readonly #run: (onText: OnText) => Promise<unknown>;
  readonly #queue: string[] = [];
  #started = false;
  #ended = false;
  #stopped = false;
  #failed: { error: unknown } | undefined;
  #wake: (() => void) | undefined;

  constructor(run: (onText: OnText) => Promise<unknown>) {
    this.#run = run;
  }

  async next(): Promise<IteratorResult<string>> {
    if (!this.#started) this.#start();
    for (;;) {
      if (this.#queue.length) return { done: false, value: this.#queue.shift()! };
      if (this.#failed) throw this.#failed.error;
      if (this.#ended || this.#stopped) return { done: true, value: undefined };
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  async return(): Promise<IteratorResult<string>> {
    this.#stopped = true;
    this.#queue.length = 0;
    return { done: true, value: undefined };
  }

  #start(): void {
    this.#started = true;
    this.#run((chunk) => {
      if (this.#stopped) throw STOPPED;
      this.#queue.push(chunk);
      this.#woken();
    }).then(() => {
      this.#ended = true;
      this.#woken();
    }, (error: unknown) => {
      if (!this.#stopped) this.#failed = { error };
      this.#woken();
    });
  }

  #woken(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
