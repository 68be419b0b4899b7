/**
 * What a run that may outlive its call has reported (context.ts RunReport), held by the instance running it and
 * written with its task's record (record.ts RunSoFar), so a call collecting it on any instance shows how far it got.
 * The text kept is the reply's last TEXT_SO_FAR_CHARS characters: the record is written again at every heartbeat,
 * and the whole reply comes with the run's end. A run whose reply is held until it is paid keeps neither text nor status
 * lines (context.ts withReplyHeld), so nothing of it is shown before its end.
 */

import { JoinedText } from '../joined-text.js';
import type { RunReport } from '../server/context.js';
import type { RunSoFar } from './record.js';

/** The most of a reply's text so far that is kept and shown before the run ends (the whole reply comes at its end). */
export const TEXT_SO_FAR_CHARS = 16_384;
/** Facts are a few short ids; a longer value is the work's mistake and is cut. */
const FACT_CHARS = 256;

export function createRunReport(startedAt = Date.now()): RunReport & { soFar(): RunSoFar } {
  return new Report(startedAt);
}

/** A class: every call with a reply deadline makes one, and its methods need no closures of their own. */
class Report implements RunReport {
  readonly #startedAt: number;
  #facts: Record<string, string> = {};
  /** The reply's text so far, flattened as it grows (a rope of every chunk otherwise), its last 2 × TEXT_SO_FAR_CHARS at most. */
  readonly #text = new JoinedText();
  #note: string | undefined;
  #withheld = false;

  constructor(startedAt: number) {
    this.#startedAt = startedAt;
  }

  describe(given: Record<string, string>): void {
    const facts: Record<string, string> = {};
    for (const name of Object.keys(given)) facts[name] = given[name]!.slice(0, FACT_CHARS);
    this.#facts = facts;
  }

  text(chunk: string): void {
    if (this.#withheld) return;
    this.#text.add(chunk);
    // Cut back to the kept length once it has doubled, not at every chunk past it (a copy of the kept text each time).
    if (this.#text.length > 2 * TEXT_SO_FAR_CHARS) this.#text.keepLast(TEXT_SO_FAR_CHARS);
  }

  note(line: string): void {
    if (!this.#withheld) this.#note = line.slice(0, FACT_CHARS);
  }

  withhold(): void {
    this.#withheld = true;
    this.#text.clear();
    this.#note = undefined;
  }

  soFar(): RunSoFar {
    const note = this.#note;
    return {
      facts: this.#facts, text: this.#text.text.slice(-TEXT_SO_FAR_CHARS), startedAt: this.#startedAt,
      ...(note !== undefined ? { note } : {}), ...(this.#withheld ? { withheld: true as const } : {}),
    };
  }
}
