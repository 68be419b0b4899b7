/**
 * A contributor has only the repository: every pointer a source file gives into the documents lands where it
 * says. A quoted section (`README "Quick start"`, `docs/security.md "Bounds"`) is a heading of that document, a
 * document named is a file, and a design rule cited by number (`docs/architecture.md rule 7`) is one of the
 * numbered rules of docs/architecture.md's "Design rules". Nothing cites a document the repository does not hold.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE_DIRS = ['api', 'lib', 'scripts', 'tools', 'bench', 'examples', 'test'];
const SELF = 'test/docs/pointers.test.ts';
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

const sources = SOURCE_DIRS.flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
  .map((file) => `${dir}/${file}`))
  .filter((file) => /\.(ts|mjs|js)$/.test(file) && !file.includes('node_modules') && file !== SELF)
  .sort();

interface Pointer { file: string; line: number; text: string }

function pointersIn(pattern: RegExp): Array<Pointer & { match: RegExpExecArray }> {
  return sources.flatMap((file) => read(file).split('\n').flatMap((line, i) => [...line.matchAll(pattern)]
    .map((match) => ({ file, line: i + 1, text: match[0], match: match as RegExpExecArray }))));
}

const headingsOf = (document: string): string[] => [...read(document).matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => heading!.trim());
const where = (p: Pointer) => `${p.file}:${p.line}: ${p.text}`;

describe('pointers from source files into the documents', () => {
  test('each quoted README or docs/*.md section is a heading of that document', () => {
    const quoted = pointersIn(/\b(README(?:\.md)?|docs\/[\w-]+\.md),? "([^"]+)"/g);
    expect(quoted.length).toBeGreaterThan(10);
    const missing = quoted.filter(({ match }) => {
      const document = match[1]!.startsWith('README') ? 'README.md' : match[1]!;
      return !existsSync(join(ROOT, document)) || !headingsOf(document).includes(match[2]!);
    });
    expect(missing.map(where), 'point these at a heading that exists (most sections live in docs/*.md)').toEqual([]);
  });

  test('each document named is a file of the repository', () => {
    const missing = pointersIn(/\bdocs\/[\w-]+\.md\b/g).filter((p) => !existsSync(join(ROOT, p.text)));
    expect(missing.map(where)).toEqual([]);
  });

  test('each design rule cited by number is a numbered rule of docs/architecture.md "Design rules"', () => {
    const section = /^## Design rules\n([\s\S]*?)(?=^## )/m.exec(read('docs/architecture.md'))?.[1] ?? '';
    const rules = new Set([...section.matchAll(/^(\d+)\. \*\*/gm)].map(([, n]) => Number(n)));
    const cited = pointersIn(/\bdocs\/architecture\.md rules? (\d+)/g);
    expect(cited.length).toBeGreaterThan(3);
    expect(cited.filter(({ match }) => !rules.has(Number(match[1]))).map(where)).toEqual([]);
  });

  test('no source cites ARCHITECTURE, a file outside the repository', () => {
    expect(pointersIn(/\bARCHITECTURE\b[^\n]{0,40}/g).map(where), 'cite docs/architecture.md and its "Design rules"').toEqual([]);
  });
});
