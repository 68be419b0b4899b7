/**
 * Character classes tested by a loop, for the checks every cold start runs: tool and skill names, skill path
 * segments, the agents' skill names, YAML plain scalars and the Host header. Regular expressions would read shorter,
 * but V8 compiles each one on its first use and again on its second, and a code cache holds none of them
 * (docs/performance.md "Issue 22 round 7: the regular expressions of a cold start"). The grammars these checks replace
 * are kept as regular expressions in test/chars.test.ts, which holds the two to the same answers.
 */

export interface CharClass {
  /** `code` (a UTF-16 code unit, as `charCodeAt` gives it; NaN past a string's end) is in the class. */
  has(code: number): boolean;
  /** Every character of `text` from `from` up to `to` is in the class (true for none). */
  all(text: string, from?: number, to?: number): boolean;
}

/** A class written as a regular expression's bracket body (`A-Za-z0-9_.-`; a `-` first or last is itself), ASCII only. */
export function charClass(spec: string): CharClass {
  const table = new Uint8Array(128);
  for (let i = 0; i < spec.length; i++) {
    const first = spec.charCodeAt(i);
    const last = spec[i + 1] === '-' && i + 2 < spec.length ? spec.charCodeAt((i += 2)) : first;
    if (last > 0x7f || last < first) throw new TypeError(`charClass("${spec}"): ASCII ranges only, in order.`);
    table.fill(1, first, last + 1);
  }
  const has = (code: number) => table[code] === 1;
  return {
    has,
    all(text, from = 0, to = text.length) {
      for (let i = from; i < to; i++) if (!has(text.charCodeAt(i))) return false;
      return true;
    },
  };
}

export const DIGITS = charClass('0-9');
export const HEX_DIGITS = charClass('0-9A-Fa-f');
