/**
 * A deployment's additions served from their description (lib/define/manifest.ts, written at build time) with
 * their code behind `load`: listing needs none of it, and the first call of any handler (a tool call, a read, a
 * prompt, an agent's turn, a completion) loads it, zod included. A tool's input is a LazySchema: arguments are
 * validated by the tool's own zod schema once loaded, and its published schema is what zod computed at build time.
 */

import type { Additions } from './index.js';
import { HANDLERS, type Kind, type Manifest } from './manifest.js';

type Item = Record<string, unknown>;
type Fn = (...args: unknown[]) => unknown;

/** The additions `manifest` describes; `load` imports the module that defines them (tools/index.ts). */
export function lazyAdditions(manifest: Manifest, load: () => Promise<{ default: Additions }>): Additions {
  let loaded: Promise<Additions> | undefined;
  const original = async (kind: Kind, i: number) => ((await (loaded ??= load().then((m) => m.default)))[kind] as unknown as Item[])[i]!;
  const call = (kind: Kind, i: number, pick: (item: Item) => unknown) =>
    async (...args: unknown[]) => (pick(await original(kind, i)) as Fn)(...args);
  const additions: Record<string, Item[]> = {};
  for (const kind of Object.keys(manifest) as Kind[]) {
    additions[kind] = manifest[kind]!.map((described, i) => {
      const item: Item = { ...described };
      for (const name of HANDLERS[kind]) {
        // An agent's reply is an async iterable from the start; the others answer with a promise.
        item[name] = kind === 'agents'
          ? async function* reply(...args: unknown[]) { yield* ((await original(kind, i))[name] as (...a: unknown[]) => AsyncIterable<string>)(...args); }
          : call(kind, i, (loadedItem) => loadedItem[name]);
      }
      if (Array.isArray(described.complete)) {
        item.complete = Object.fromEntries((described.complete as string[]).map((arg) =>
          [arg, call(kind, i, (loadedItem) => (loadedItem.complete as Record<string, Fn>)[arg])]));
      }
      if (kind === 'tools' && described.input) {
        const { jsonSchema } = described.input as { jsonSchema: Record<string, unknown> };
        item.input = { jsonSchema, load: async () => (await original(kind, i)).input };
      }
      return item;
    });
  }
  return additions as Additions;
}
