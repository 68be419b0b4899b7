/**
 * Test support for the doc test: the shell commands of a Markdown document, as a reader would type them.
 * Fenced blocks tagged sh, bash or shell hold commands; a command ends at a newline outside quotes that no
 * backslash continues, `#` starting a word begins a comment, and `&&` chains separate commands.
 */

export interface DocCommand {
  /** The document it comes from, e.g. README.md. */
  file: string;
  /** The command as typed, on one line (continuations joined, comments dropped, spaces collapsed outside quotes). */
  text: string;
}

const FENCE = /^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm;

/** Every command of the shell blocks in `markdown`, in order. */
export function extractCommands(file: string, markdown: string): DocCommand[] {
  const commands: DocCommand[] = [];
  for (const [, block] of markdown.matchAll(FENCE)) {
    for (const line of splitCommands(block!)) {
      for (const part of splitChain(line)) commands.push({ file, text: part });
    }
  }
  return commands;
}

/** Splits a block into command lines, quote-aware, dropping comments and joining `\` continuations. */
function splitCommands(block: string): string[] {
  const lines: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < block.length; i++) {
    const c = block[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      current += c === '\n' ? ' ' : c;
    } else if (c === "'" || c === '"') {
      quote = c;
      current += c;
    } else if (c === '\\' && block[i + 1] === '\n') {
      i++;
      current += ' ';
    } else if (c === '#' && (current === '' || /\s$/.test(current))) {
      while (i + 1 < block.length && block[i + 1] !== '\n') i++;
    } else if (c === '\n') {
      lines.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  lines.push(current);
  return lines.map(collapse).filter(Boolean);
}

/** `a && b` → [a, b], outside quotes. */
function splitChain(line: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) { if (c === quote) quote = undefined; } else if (c === "'" || c === '"') quote = c;
    if (!quote && line.startsWith('&&', i)) {
      parts.push(current);
      current = '';
      i++;
    } else current += c;
  }
  parts.push(current);
  return parts.map(collapse).filter(Boolean);
}

/** Collapses runs of spaces outside quotes. */
function collapse(text: string): string {
  let out = '';
  let quote: string | undefined;
  for (const c of text.trim()) {
    if (quote) { if (c === quote) quote = undefined; } else if (c === "'" || c === '"') quote = c;
    if (!quote && c === ' ' && out.endsWith(' ')) continue;
    out += c;
  }
  return out;
}

/** The words of a command, as the shell passes them (single and double quotes, no expansions). */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = undefined;
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      current ??= '';
    } else if (c === ' ') {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else {
      current = (current ?? '') + c;
    }
  }
  if (current !== undefined) words.push(current);
  return words;
}

/** Leading `NAME=value` words, and the rest of the command. */
export function splitAssignments(words: string[]): { env: Record<string, string>; argv: string[] } {
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length; i++) {
    const match = /^([A-Z_][A-Z0-9_]*)=([\s\S]*)$/.exec(words[i]!);
    if (!match) break;
    env[match[1]!] = match[2]!;
  }
  return { env, argv: words.slice(i) };
}
