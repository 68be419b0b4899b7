/**
 * lib/ has no import cycles, type-only imports included: a cycle means two modules are one concept split in two,
 * and makes load order (and cold start) fragile.
 */

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const LIB = join(ROOT, 'lib');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []);
}

/** Relative imports of a file, static or dynamic, as absolute .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
}

function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

test('no module in lib/ imports itself through others', () => {
  const files = sources(LIB);
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((i) => i.startsWith(LIB))]));
  expect(files.length).toBeGreaterThan(50);
  expect(findCycle(graph)?.map((f) => relative(ROOT, f))).toBeUndefined();
});
