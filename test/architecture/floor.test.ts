/**
 * lib/server/ is the floor (docs/architecture.md "The floor"): the MCP core, which the features plug into through the
 * method table, the capabilities they declare and the call strategies lib/app.ts installs. So nothing lib/server/
 * loads, directly or through another module, type-only imports included, lies in a feature's folder, nor in the HTTP
 * layer above it (rule 1).
 */

import { join, relative, sep } from 'node:path';
import { expect, test } from 'vitest';
import { LIB, libGraph, ROOT } from './graph.js';

const FLOOR = join(LIB, 'server') + sep;
const ABOVE_THE_FLOOR = ['tasks', 'skills', 'agent', 'pay', 'mounts', 'auth', 'define', 'discovery', 'http'].map((dir) => join(LIB, dir) + sep);

/** Each module of a feature the floor reaches, with the chain of imports that reaches it from lib/server/. */
function reachedFromFloor(graph: Map<string, string[]>): string[] {
  const via = new Map<string, string[]>();
  const queue = [...graph.keys()].filter((file) => file.startsWith(FLOOR)).map((file) => [file]);
  for (const chain of queue) via.set(chain[0]!, chain);
  for (let i = 0; i < queue.length; i++) {
    const chain = queue[i]!;
    for (const next of graph.get(chain.at(-1)!) ?? []) {
      if (via.has(next)) continue;
      const longer = [...chain, next];
      via.set(next, longer);
      queue.push(longer);
    }
  }
  return [...via.entries()]
    .filter(([file]) => ABOVE_THE_FLOOR.some((dir) => file.startsWith(dir)))
    .map(([, chain]) => chain.map((file) => relative(ROOT, file)).join(' → '));
}

test('lib/server/ imports nothing of a feature (tasks, skills, agent, pay, mounts, auth, define, discovery) nor of lib/http/, even through another module', () => {
  const graph = libGraph();
  expect([...graph.keys()].filter((file) => file.startsWith(FLOOR)).length).toBeGreaterThan(10);
  expect(reachedFromFloor(graph)).toEqual([]);
});

test('the check sees an import of a feature, however far down the chain', () => {
  const graph = libGraph();
  const dispatch = join(LIB, 'server', 'dispatch.ts');
  const protocol = join(LIB, 'protocol', 'errors.ts');
  // As if lib/protocol/errors.ts, which the floor loads, imported the tasks feature.
  graph.set(protocol, [...(graph.get(protocol) ?? []), join(LIB, 'tasks', 'feature.ts')]);
  expect(graph.get(dispatch)).toContain(protocol);
  expect(reachedFromFloor(graph).some((chain) => chain.endsWith('lib/tasks/feature.ts') && chain.startsWith('lib/server/'))).toBe(true);
});
