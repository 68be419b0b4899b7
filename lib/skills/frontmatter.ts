/**
 * SKILL.md text from a frontmatter object and a markdown body. Each value is written either as a plain YAML
 * scalar (simple words only) or as JSON, which YAML 1.2 reads as flow style; so the YAML a host parses back is
 * the object we publish in `frontmatter`, field for field (SEP-2640 §Frontmatter: "identical in content"),
 * without a YAML library on the server.
 */

import { charClass } from '../chars.js';

export type Frontmatter = { name: string; description: string } & Record<string, unknown>;

/**
 * A plain scalar here is a word of these characters that starts with a letter: one starting with a digit could be a
 * number, a date or a time, and none of these characters can start a null (`~`) or a number (a sign, `.inf`, `.nan`).
 * Tested by loops (lib/chars.ts), as are the characters `quoted` escapes: this runs on every cold start, which
 * renders the agents' skills.
 */
const LETTERS = charClass('A-Za-z');
const PLAIN_CHARS = charClass('A-Za-z0-9_.-');
/** Of those words, the ones YAML 1.1 or 1.2 would read as something other than a string, in any case. */
const NOT_A_STRING = new Set(['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null']);

/** Characters YAML's double-quoted scalars do not accept raw, though JSON.stringify leaves them. */
const unprintable = (code: number) => (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0xfeff;

/** `value` as JSON, which YAML reads as a double-quoted scalar once the characters it refuses raw are escaped. */
function quoted(value: unknown): string {
  const json = JSON.stringify(value);
  let text = '';
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (!unprintable(code)) continue;
    text += `${json.slice(from, i)}\\u${code.toString(16).padStart(4, '0')}`;
    from = i + 1;
  }
  return from === 0 ? json : text + json.slice(from);
}

function isPlain(text: string): boolean {
  return LETTERS.has(text.charCodeAt(0)) && PLAIN_CHARS.all(text) && !NOT_A_STRING.has(text.toLowerCase());
}

function yamlValue(value: unknown): string {
  return typeof value === 'string' && isPlain(value) ? value : quoted(value);
}

/** `---`, one `key: value` line per field, `---`, a blank line, the body. */
export function renderSkillMd(frontmatter: Frontmatter, body: string): string {
  const lines = Object.entries(frontmatter).map(([key, value]) => `${isPlain(key) ? key : quoted(key)}: ${yamlValue(value)}`);
  return `---\n${lines.join('\n')}\n---\n\n${body.endsWith('\n') ? body : `${body}\n`}`;
}
