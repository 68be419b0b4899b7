/**
 * What one request may cost (docs/security.md "What one request can cost"). The outermost chat call makes one
 * budget, and every agent turn and tool call that call sets off, nested agents' included, spends from it; it
 * travels with the turn (ask.ts), never in anything a client or a model sends, so no one can ask for a fresh one.
 * - Model calls (AGENT_MAX_UPSTREAM_CALLS): each upstream model request is counted before it is sent; once they
 *   are spent the next is refused with an AgentError, so the turn ends with an isError naming the variable.
 * - Tool calls (AGENT_MAX_TOOL_CALLS_TOTAL): each call a model asks for, `agent:<id>` included; once they are spent
 *   a call is answered "not run", which the model reads.
 * - At once (AGENT_MAX_PARALLEL_CALLS): model requests and tool calls run at most this many together; the rest
 *   wait their turn. Only leaves hold a place (a model request, a tool of the team), never an agent: a nested
 *   agent holding one while it waits for its own leaves could leave none for them.
 * - Time (AGENT_TURN_TIMEOUT_MS): the whole turn, tool loop and nested agents included. `signal` aborts when the
 *   time is up or the caller cancels, and everything of the turn runs on it.
 * - Tokens (the caller's token budgets, lib/limits/tokens.ts): once a charge of the call's usage crosses one, the next
 *   model request is refused like a spent AGENT_MAX_UPSTREAM_CALLS (after the charges already sent are counted), and
 *   a tool call is answered "not run".
 */

import { setMaxListeners } from 'node:events';
import { Cancellation, type CancelView, type SignalSource } from '../server/cancellation.js';
import type { TokenSpend } from '../server/context.js';
import { createCountedWarning } from '../warn.js';
import { AgentError, callCancelled, type ModelCalls, type ToolOutcome } from './types.js';
import type { ModelRequestUsage, UsageReport } from '../usage/meter.js';

export interface BudgetLimits {
  /** AGENT_MAX_UPSTREAM_CALLS: upstream model requests one request may make, across its whole agent chain. */
  maxUpstreamCalls: number;
  /** AGENT_MAX_TOOL_CALLS_TOTAL: tool calls (agents included) one request may make, across its whole chain. */
  maxToolCalls: number;
  /** AGENT_MAX_PARALLEL_CALLS: model requests and tool calls of one request running at once. */
  maxParallel: number;
  /** AGENT_TURN_TIMEOUT_MS: how long one chat call's agent work may take in all. */
  turnTimeoutMs: number;
}

/** A refusal by a bound of the request; `variable` names it in the caller's record of the call. */
export class BudgetSpent extends AgentError {
  constructor(message: string, readonly variable: string) {
    super(message);
    this.name = 'BudgetSpent';
  }
}

const modelsSpent = createCountedWarning((agent, count) => `refused ${count} model call(s) over AGENT_MAX_UPSTREAM_CALLS (latest: agent ${agent})`);
const toolsSpent = createCountedWarning((tool, count) => `refused ${count} tool call(s) over AGENT_MAX_TOOL_CALLS_TOTAL (latest: ${tool})`);
const outOfTime = createCountedWarning((agent, count) => `stopped ${count} agent turn(s) at AGENT_TURN_TIMEOUT_MS (latest: agent ${agent})`);

export class RequestBudget implements ModelCalls {
  readonly #limits: BudgetLimits;
  readonly #agentId: string;
  /** The turn's: the caller's cancellation, or the clock's. Its AbortSignal is made only for an API that takes one. */
  readonly #cancellation: Cancellation;
  readonly #timer: ReturnType<typeof setTimeout>;
  #signal: AbortSignal | undefined;
  #models = 0;
  #tools = 0;
  #running = 0;
  /** Who waits for a place, in arrival order; all are refused at once when the turn ends. */
  readonly #waiting: Array<{ go(): void; stop(reason: unknown): void }> = [];
  #stopsWaiters = false;
  #timedOut = false;
  readonly #tokens: TokenSpend | undefined;

  /** `agentId` is the outermost agent; `outer` the caller's cancellation; `tokens` what the call spends of the caller's token budgets. */
  constructor(limits: BudgetLimits, agentId: string, outer: SignalSource, tokens?: TokenSpend) {
    this.#limits = limits;
    this.#tokens = tokens;
    this.#agentId = agentId;
    this.#cancellation = new Cancellation(outer);
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      outOfTime.note(agentId);
      this.#cancellation.cancel(new AgentError(this.timeoutMessage));
    }, limits.turnTimeoutMs);
  }

  /** Aborts when the caller cancels or the turn's time is up; made when first read. */
  get signal(): AbortSignal {
    if (this.#signal) return this.#signal;
    const signal = (this.#signal = this.#cancellation.signal);
    // Every request and tool call of the chain listens to this one signal while it runs (nested agents' listings
    // too, which hold no place), so more than Node's default 10 is the budget working, not a leak: the budget
    // itself bounds how many there can be.
    setMaxListeners(2 * (this.#limits.maxToolCalls + this.#limits.maxParallel) + 2, signal);
    return signal;
  }

  /** The same, without an AbortSignal: what the turn's own steps listen to. */
  get cancellation(): CancelView {
    return this.#cancellation;
  }

  /** True once the turn is over: the caller cancelled or its time is up. */
  get cancelled(): boolean {
    return this.#cancellation.cancelled;
  }

  /** True once the turn ran out of time (not when the caller cancelled). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  get timeoutMessage(): string {
    return `Agent ${this.#agentId}: the turn ran longer than AGENT_TURN_TIMEOUT_MS (${this.#limits.turnTimeoutMs} ms) and was stopped.`;
  }

  /** Counts one model request of `agentId` and waits for a place; throws BudgetSpent once the request's are spent. */
  async start(agentId: string): Promise<() => void> {
    this.#throwIfAborted(agentId);
    const max = this.#limits.maxUpstreamCalls;
    if (this.#models >= max) {
      modelsSpent.note(agentId);
      throw new BudgetSpent(`Agent ${agentId}: this request spent its budget of ${max} model calls (AGENT_MAX_UPSTREAM_CALLS); the turn was stopped.`, 'AGENT_MAX_UPSTREAM_CALLS');
    }
    if (this.#tokens) {
      await this.#tokens.settled();
      const over = this.#tokens.stopped;
      if (over) throw new BudgetSpent(`Agent ${agentId}: ${over.reason}`, over.variable);
    }
    this.#models += 1;
    return this.place();
  }

  /** Waits for the token charges already sent (a model request's report is charged as it arrives), so the next step sees them. */
  async tokensCounted(): Promise<void> {
    await this.#tokens?.settled();
  }

  /** Counts one tool call; a refusal for the model to read once the request's are spent (tokens too: call tokensCounted first). */
  spendToolCall(name: string): ToolOutcome | undefined {
    const over = this.#tokens?.stopped;
    if (over) return { ok: false, text: `Tool ${name} was not run: ${over.reason}`, limit: over.variable };
    const max = this.#limits.maxToolCalls;
    if (this.#tools < max) {
      this.#tools += 1;
      return undefined;
    }
    toolsSpent.note(name);
    return { ok: false, text: `Tool ${name} was not run: this request spent its budget of ${max} tool calls (AGENT_MAX_TOOL_CALLS_TOTAL).`, limit: 'AGENT_MAX_TOOL_CALLS_TOTAL' };
  }

  /** One of the AGENT_MAX_PARALLEL_CALLS places, in arrival order; the function returned gives it back. */
  async place(): Promise<() => void> {
    if (this.#cancellation.cancelled) throw this.#cancellation.reason;
    if (this.#running < this.#limits.maxParallel) this.#running += 1;
    else await this.#queue();
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // Handed straight to the next in line, so no newcomer slips in between.
      const next = this.#waiting.shift();
      if (next) next.go();
      else this.#running -= 1;
    };
  }

  /** Waits until a place is handed over, or the turn ends. */
  #queue(): Promise<void> {
    if (!this.#stopsWaiters) {
      this.#stopsWaiters = true;
      // One listener for every waiter: a fan-out of calls would otherwise add one each.
      this.#cancellation.onCancel((reason) => {
        for (const waiter of this.#waiting.splice(0)) waiter.stop(reason);
      });
    }
    return new Promise<void>((resolve, reject) => void this.#waiting.push({ go: resolve, stop: reject }));
  }

  /**
   * `work`, or the turn's end, whichever comes first: the bound holds even for an in-process agent that does not
   * watch its signal (its work is left behind, its result unread).
   */
  within<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const off = this.#cancellation.onCancel(reject);
      work.then((value) => { off(); resolve(value); }, (error: unknown) => { off(); reject(error); });
    });
  }

  /** Ends the turn's clock; call once the turn is over. */
  close(): void {
    clearTimeout(this.#timer);
    this.#cancellation.dispose();
  }

  #throwIfAborted(agentId: string): void {
    if (this.#cancellation.cancelled) throw this.#timedOut ? new AgentError(this.timeoutMessage) : callCancelled(agentId);
  }
}

/** What a format says of one request's usage as it reads the reply; the last report stands (docs/agents.md "Usage"). */
export type ReportUsage = (usage: ModelRequestUsage | undefined) => void;

/**
 * An upstream model request as a budget sees it: counted and given a place before `run` starts, the place given back
 * after. `run` reports what its upstream said of the request's usage; once it ends, however it ends, that is recorded
 * in `usage` as one model request (rule 17), unknown when it said nothing.
 */
export function metered<T>(
  calls: ModelCalls | undefined, agentId: string, run: (report: ReportUsage) => AsyncGenerator<string, T>, usage?: UsageReport,
): AsyncGenerator<string, T> {
  return new Metered(calls, agentId, run, usage) as unknown as AsyncGenerator<string, T>;
}

/**
 * `metered` for a request whose text is pushed (push.ts): the place is taken before `run` starts and given back when it
 * settles, however it settles, and its usage recorded once; a place that could not be taken records nothing.
 */
export async function meteredRequest<T>(
  calls: ModelCalls | undefined, agentId: string, run: (report: ReportUsage) => Promise<T>, usage?: UsageReport,
): Promise<T> {
  const release = await calls?.start(agentId);
  let said: ModelRequestUsage | undefined;
  try {
    return await run((read) => void (said = read));
  } finally {
    release?.();
    usage?.record(said);
  }
}

type Step<T> = Promise<IteratorResult<string, T>>;

/**
 * `metered` as an iterator written out rather than an async generator around `run`'s: a chunk's step is `run`'s own,
 * passed on with one reaction, where a generator layer made a promise, an await and a result object of its own for
 * every chunk (issue 48; a streamed chunk passed five such layers). What the generator did, it does: the place is taken
 * on the first step, `run` starts once it is held, and when `run` ends (its last value, a failure, or the reader's
 * `return`) the place is given back and the usage recorded, once; a place that could not be taken records nothing.
 */
class Metered<T> {
  #inner: AsyncGenerator<string, T> | undefined;
  #release: (() => void) | undefined;
  #said: ModelRequestUsage | undefined;
  #ended = false;

  constructor(
    readonly calls: ModelCalls | undefined, readonly agentId: string,
    readonly run: (report: ReportUsage) => AsyncGenerator<string, T>, readonly usage: UsageReport | undefined,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(value?: unknown): Step<T> {
    // The chunk's own step: the run's promise and one reaction, made with functions made once per request.
    if (this.#inner && !this.#ended) return this.#inner.next(value).then(this.#stepped, this.#failed);
    return this.#step((inner) => inner.next(value));
  }

  return(value: T): Step<T> {
    if (!this.#inner) {
      this.#ended = true;
      return Promise.resolve({ done: true, value });
    }
    return this.#step((inner) => inner.return(value));
  }

  throw(error: unknown): Step<T> {
    if (!this.#inner) {
      this.#ended = true;
      return Promise.reject(error);
    }
    return this.#step((inner) => inner.throw(error));
  }

  #step(step: (inner: AsyncGenerator<string, T>) => Step<T>): Step<T> {
    if (this.#ended) return Promise.resolve({ done: true, value: undefined as T });
    const stepped = this.#inner ? step(this.#inner) : this.#start().then(() => step(this.#inner!));
    return stepped.then(this.#stepped, this.#failed);
  }

  readonly #stepped = (result: IteratorResult<string, T>): IteratorResult<string, T> => {
    if (result.done) this.#end();
    return result;
  };

  readonly #failed = (error: unknown): never => {
    this.#end();
    throw error;
  };

  async #start(): Promise<void> {
    try {
      this.#release = await this.calls?.start(this.agentId);
    } catch (error) {
      // No place, no request: nothing to give back or record, as the generator never entered its try.
      this.#ended = true;
      throw error;
    }
    this.#inner = this.run((read) => void (this.#said = read));
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#release?.();
    this.usage?.record(this.#said);
  }
}
