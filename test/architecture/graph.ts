/** lib/'s import graph as the architecture tests read it: relative imports of each .ts file, type-only ones included. */

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const LIB = join(ROOT, 'lib');

export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []);
}

/** Relative imports of a file, static, side-effect only, re-exported or dynamic, as absolute .ts paths. */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
}

/** Every module of lib/ with the modules of lib/ it imports. */
export function libGraph(): Map<string, string[]> {
  return new Map(sources(LIB).map((f) => [f, importsOf(f).filter((i) => i.startsWith(LIB))]));
}
