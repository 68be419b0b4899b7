/**
 * lib/ has no import cycles, type-only imports included: a cycle means two modules are one concept split in two,
 * and makes load order (and cold start) fragile.
 */

import { relative } from 'node:path';
import { expect, test } from 'vitest';
import { libGraph, ROOT } from './graph.js';

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
  const graph = libGraph();
  expect(graph.size).toBeGreaterThan(50);
  expect(findCycle(graph)?.map((f) => relative(ROOT, f))).toBeUndefined();
});
