/**
 * What a run that may outlive its call has reported (context.ts RunReport), held by the instance running it and
 * written with its task's record (record.ts RunSoFar), so a call collecting it on any instance shows how far it got.
 * The text kept is the reply's last TEXT_SO_FAR_CHARS characters: the record is written again at every heartbeat,
 * and the whole reply comes with the run's end.
 */

import type { RunReport } from '../server/context.js';
import type { RunSoFar } from './record.js';

/** The most of a reply's text so far that is kept and shown before the run ends (the whole reply comes at its end). */
export const TEXT_SO_FAR_CHARS = 16_384;
/** Facts are a few short ids; a longer value is the work's mistake and is cut. */
const FACT_CHARS = 256;

export function createRunReport(startedAt = Date.now()): RunReport & { soFar(): RunSoFar } {
  let facts: Record<string, string> = {};
  let text = '';
  let note: string | undefined;
  return {
    describe(given) {
      facts = Object.fromEntries(Object.entries(given).map(([name, value]) => [name, value.slice(0, FACT_CHARS)]));
    },
    text(chunk) {
      text += chunk;
      if (text.length > TEXT_SO_FAR_CHARS) text = text.slice(-TEXT_SO_FAR_CHARS);
    },
    note(line) {
      note = line.slice(0, FACT_CHARS);
    },
    soFar: () => ({ facts, text, startedAt, ...(note !== undefined ? { note } : {}) }),
  };
}
