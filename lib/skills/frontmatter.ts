/**
 * SKILL.md text from a frontmatter object and a markdown body. Each value is written either as a plain YAML
 * scalar (simple words only) or as JSON, which YAML 1.2 reads as flow style; so the YAML a host parses back is
 * the object we publish in `frontmatter`, field for field (SEP-2640 §Frontmatter: "identical in content"),
 * without a YAML library on the server.
 */

export type Frontmatter = { name: string; description: string } & Record<string, unknown>;

const PLAIN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/**
 * Of the words PLAIN admits, those YAML 1.1 or 1.2 would read as something other than a string: these, in any case,
 * and whatever starts with a digit (a number, a date, a time). Nothing else PLAIN admits can start a null (`~`) or a
 * number (a sign, `.inf`, `.nan`). A set and a character test rather than one case-insensitive regular expression:
 * V8 compiles that on its first two uses, about 0.1 ms of every cold start, which renders the agents' skills.
 */
const NOT_A_STRING = new Set(['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null']);
/** Characters YAML's double-quoted scalars do not accept raw, though JSON.stringify leaves them. */
const UNPRINTABLE = /[\u007f-\u009f\u2028\u2029\ufeff]/g;

function quoted(value: unknown): string {
  return JSON.stringify(value).replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function isPlain(text: string): boolean {
  const first = text.charCodeAt(0);
  return PLAIN.test(text) && !(first >= 0x30 && first <= 0x39) && !NOT_A_STRING.has(text.toLowerCase());
}

function yamlValue(value: unknown): string {
  return typeof value === 'string' && isPlain(value) ? value : quoted(value);
}

/** `---`, one `key: value` line per field, `---`, a blank line, the body. */
export function renderSkillMd(frontmatter: Frontmatter, body: string): string {
  const lines = Object.entries(frontmatter).map(([key, value]) => `${isPlain(key) ? key : quoted(key)}: ${yamlValue(value)}`);
  return `---\n${lines.join('\n')}\n---\n\n${body.endsWith('\n') ? body : `${body}\n`}`;
}
