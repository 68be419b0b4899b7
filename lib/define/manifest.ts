/**
 * Build time only (scripts/lazy-additions.mjs): a deployment's additions as data, so the bundle can list them
 * without loading the code that defines them, zod included (lib/define/lazy.ts puts the code back behind an
 * import() on first use). Tool schemas become the JSON Schema the registry would compute; every handler becomes
 * a marker naming it. What cannot be described (a function elsewhere, a class instance, a zod schema outside a
 * tool) is a TypeError saying where, and the build then keeps the additions on the start path as they are.
 */

import { toJsonSchema } from '../server/create-registry.js';
import type { Additions } from './index.js';

/** The functions each kind of addition may hold, called through a delegate once the code has loaded. */
export const HANDLERS = {
  tools: ['run'],
  resources: ['read'],
  resourceTemplates: ['read'],
  prompts: ['get'],
  agents: ['reply'],
  skills: [],
} as const satisfies Record<keyof Additions, readonly string[]>;

export type Kind = keyof typeof HANDLERS;
/** One addition as data; `complete` lists the arguments that have a completer. */
export type Described = Record<string, unknown>;
export type Manifest = Partial<Record<Kind, Described[]>>;

const isZod = (value: unknown) => typeof value === 'object' && value !== null && '_zod' in value;

function plainData(value: unknown, where: string): unknown {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value;
  if (Array.isArray(value)) return value.map((item, i) => plainData(item, `${where}[${i}]`));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainData(item, `${where}.${key}`)]));
  }
  throw new TypeError(`${where} is ${typeof value === 'function' ? 'a function' : 'not plain data'}, which only its module can hold.`);
}

function describe(kind: Kind, item: Record<string, unknown>, where: string): Described {
  const handlers: readonly string[] = HANDLERS[kind];
  const described: Described = {};
  for (const [key, value] of Object.entries(item)) {
    if (value === undefined) continue;
    if (handlers.includes(key) && typeof value === 'function') continue;
    if (kind === 'tools' && (key === 'input' || key === 'output') && isZod(value)) {
      described[key] = { jsonSchema: toJsonSchema(value as never, key) };
    } else if (key === 'complete' && (kind === 'resourceTemplates' || kind === 'prompts') && typeof value === 'object') {
      described.complete = Object.keys(value as object);
    } else {
      described[key] = plainData(value, `${where}.${key}`);
    }
  }
  return described;
}

/** `additions` as data; a TypeError names what only code can hold. */
export function describeAdditions(additions: Additions): Manifest {
  const manifest: Manifest = {};
  for (const kind of Object.keys(HANDLERS) as Kind[]) {
    const items = additions[kind] as Record<string, unknown>[] | undefined;
    if (items?.length) manifest[kind] = items.map((item, i) => describe(kind, item, `${kind}[${i}]`));
  }
  return manifest;
}
