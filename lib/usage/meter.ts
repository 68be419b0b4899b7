/**
 * What one call's agents spent, in tokens, as their upstreams said (docs/architecture.md rule 17). Every agent format
 * reports each model request it makes into the call's one meter, the tool loop's requests and nested agents' alike;
 * budgets, prices, the result's `_meta`, the log line, the span and the usage counters read the meter, never a format.
 *
 * A request whose upstream said nothing of its usage is counted as unknown, never as zero: the total then says it is
 * incomplete. A report that cannot be right (negative, fractional, not a number) counts as unknown too, so an upstream
 * cannot lower a budget or a price below what was read; one past MAX_REPORTED_TOKENS is held to it.
 */

/** Tokens one model request spent, as its upstream reported them; a field it did not report is absent. */
export interface ModelRequestUsage {
  /** Input (prompt) tokens, cached ones included (OpenAI's `prompt_tokens`; Anthropic's input + cache read + cache write). */
  input?: number;
  output?: number;
  /** Of `input`, read from the provider's prompt cache. */
  cachedInput?: number;
  /** Of `input`, written to the provider's prompt cache (Anthropic's `cache_creation_input_tokens`). */
  cacheWrite?: number;
  /** Set when the numbers are the meter's caller's estimate, not the upstream's report. */
  estimated?: boolean;
}

export interface UsageTotal {
  /** Model requests reported to the meter, known and unknown. */
  readonly modelRequests: number;
  /** Of them, the requests whose usage is unknown (the upstream said nothing, or nothing believable). */
  readonly unknownRequests: number;
  readonly input: number;
  readonly output: number;
  readonly cachedInput: number;
  readonly cacheWrite: number;
  /** True when any number in the total is an estimate. */
  readonly estimated: boolean;
}

/** What one report added to the total: what a budget charges as usage arrives. */
export interface UsageDelta {
  readonly input: number;
  readonly output: number;
  readonly known: boolean;
}

/** The most tokens one model request may report; a larger report is held to it and said in the operator's log. */
export const MAX_REPORTED_TOKENS = 100_000_000;

const EMPTY: UsageTotal = Object.freeze({
  modelRequests: 0, unknownRequests: 0, input: 0, output: 0, cachedInput: 0, cacheWrite: 0, estimated: false,
});

type Listener = (delta: UsageDelta, total: UsageTotal) => void;

/** Where an agent reports its model requests (types.ts AgentTurn.usage): the call's meter, or a view that passes reports on to it. */
export interface UsageReport {
  /** One model request's usage; `undefined` when its upstream reported none. */
  record(usage: ModelRequestUsage | undefined): void;
}

/** How a call's run that went on as a task ended: its answer, or that it threw. */
export type TaskRunEnd = { value: unknown } | { failed: true };

export class UsageMeter implements UsageReport {
  #total: UsageTotal = EMPTY;
  readonly #listeners = new Set<Listener>();
  #taskRun?: Promise<TaskRunEnd>;

  /** The end of the call's run, when the call was answered with a task: its tokens are spent until then. */
  get taskRun(): Promise<TaskRunEnd> | undefined {
    return this.#taskRun;
  }

  /**
   * Says the call's run goes on as a task (lib/tasks) and ends with `run`: the usage counters count the call then,
   * with every token its run reported into this meter, rather than when the call answered (lib/usage/counter.ts).
   */
  continuesAsTask(run: Promise<unknown>): void {
    this.#taskRun = run.then((value) => ({ value }), () => ({ failed: true as const }));
  }

  /** The sum of every report so far. */
  get total(): UsageTotal {
    return this.#total;
  }

  /** True when every model request so far reported believable usage (and at least one was made). */
  get complete(): boolean {
    return this.#total.modelRequests > 0 && this.#total.unknownRequests === 0;
  }

  /** One model request's usage; `undefined` when its upstream reported none. */
  record(usage: ModelRequestUsage | undefined): void {
    const read = usage === undefined ? undefined : believable(usage);
    const before = this.#total;
    const input = read?.input ?? 0;
    const output = read?.output ?? 0;
    this.#total = Object.freeze({
      modelRequests: before.modelRequests + 1,
      unknownRequests: before.unknownRequests + (read === undefined ? 1 : 0),
      input: before.input + input,
      output: before.output + output,
      cachedInput: before.cachedInput + (read?.cachedInput ?? 0),
      cacheWrite: before.cacheWrite + (read?.cacheWrite ?? 0),
      estimated: before.estimated || read?.estimated === true,
    });
    const delta: UsageDelta = { input, output, known: read !== undefined };
    for (const listener of this.#listeners) listener(delta, this.#total);
  }

  /** Calls `listener` after each report (a budget charging as usage arrives); returns what stops it. */
  onRecord(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}

/** Counts that are whole, non-negative numbers; undefined when input or output is missing or not believable. */
function believable(usage: ModelRequestUsage): Required<Omit<ModelRequestUsage, 'estimated'>> & { estimated: boolean } | undefined {
  const input = count(usage.input);
  const output = count(usage.output);
  if (input === undefined || output === undefined) return undefined;
  // Cache counts are parts of the input: a part larger than the whole is held to the whole, a bad one read as none.
  const cachedInput = Math.min(count(usage.cachedInput) ?? 0, input);
  const cacheWrite = Math.min(count(usage.cacheWrite) ?? 0, input);
  return { input, output, cachedInput, cacheWrite, estimated: usage.estimated === true };
}

function count(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return undefined;
  return Math.min(value, MAX_REPORTED_TOKENS);
}
