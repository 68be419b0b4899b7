/**
 * One timer for every call in flight that needs a coarse periodic look (an SSE stream's keep-alive, a progress
 * reporter's flush and heartbeat): each joins a tick and leaves it when done, instead of arming a timer of its own.
 * A timer per call is a Timeout object and a timer-list entry per call, re-armed at every flush (issue 48,
 * docs/performance.md "Streamed calls in flight, issue 48"); a thousand calls in flight share one here. The tick runs only
 * while something has joined it, so an idle process has no timer and exits as before.
 *
 * What joins is the call's own object (a stream, a reporter), visited by one function the tick was made with: a call
 * makes no closure or timer to join.
 * Module scope holds the ticks themselves, never a call's data: a member sees only its own tick.
 */

export class SharedTick<Member extends object> {
  readonly #members = new Set<Member>();
  #timer: ReturnType<typeof setInterval> | undefined;

  /** `visit(member, now)` runs for each member once a tick, `now` being `Date.now()`; a member may leave from there. */
  constructor(readonly everyMs: number, private readonly visit: (member: Member, now: number) => void) {}

  /** Joins (again, harmlessly): visited every `everyMs` until it leaves. */
  join(member: Member): void {
    this.#members.add(member);
    this.#timer ??= setInterval(() => this.#run(), this.everyMs);
  }

  leave(member: Member): void {
    if (!this.#members.delete(member) || this.#members.size) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #run(): void {
    const now = Date.now();
    for (const member of this.#members) {
      try {
        this.visit(member, now);
      } catch (error) {
        // As a timer of its own would: the others still run, the error is the process's.
        process.nextTick(() => { throw error; });
      }
    }
  }
}
