/**
 * The quick arguments check (lib/server/quick-args.ts) answers for zod: on every argument object of a seeded draw
 * around chat_with_agent's bounds (lengths at each edge, counted in code points as zod and JSON Schema count them,
 * of characters of one and two UTF-16 units and lone surrogates; wrong types; unknown and inherited keys), what it
 * accepts zod accepts, with the same data in the same order, and what zod accepts it accepts, unless a property is
 * set to undefined, which it leaves to zod.
 */

import { describe, expect, test } from 'vitest';
import { input } from '../../lib/agent/chat-schema.js';
import { INPUT_JSON_SCHEMA } from '../../lib/agent/chat-json-schema.js';
import { quickCheckOf } from '../../lib/server/quick-args.js';
import { seeded } from '../support/seeded.js';

const quick = quickCheckOf(INPUT_JSON_SCHEMA);
const LENGTHS = [0, 1, 2, 3, 199, 200, 201, 99_999, 100_000, 100_001];

/** A string of `length` characters: of one UTF-16 unit, of two (a surrogate pair), or of one alone (a lone surrogate). */
const text = (length: number, kind: number) => ['x', '😀', '\ud83d', '\ude00'][kind]!.repeat(length);

function drawArguments(count: number, seed: number): Record<string, unknown>[] {
  const next = seeded(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const stringValue = () => (next() < 0.85 ? text(pick(LENGTHS), pick([0, 0, 0, 1, 1, 2, 3])) + pick(['', '', 'x', '😀', '\ud83d'])
    : pick([true, 1, null, [], {}, undefined, ['x']]));
  const booleanValue = () => pick([true, false, 'true', 0, null, undefined]);
  return Array.from({ length: count }, () => {
    const args: Record<string, unknown> = {};
    for (const key of ['agent_id', 'message', 'session_id', 'handle']) if (next() < 0.5) args[key] = stringValue();
    if (next() < 0.4) args.cancel = booleanValue();
    if (next() < 0.2) args.extra = stringValue();
    if (next() < 0.1) Object.defineProperty(args, '__proto__', { value: { message: 'inherited?' }, enumerable: true });
    // Most arguments arrive as JSON, which has no undefined: a property set to it stays only on some.
    return next() < 0.8 ? JSON.parse(JSON.stringify(args)) : args;
  });
}

const hasUndefined = (args: Record<string, unknown>) => Object.values(args).some((value) => value === undefined);
/** What a failure shows of the arguments: each key's type, or its length for a string. */
const shape = (args: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(args).map(([key, value]) => [key, typeof value === 'string' ? value.length : value === null ? 'null' : typeof value]));

describe('the quick check of chat_with_agent\'s arguments', () => {
  const drawn = drawArguments(4_000, 28);
  const answers = drawn.map((args) => ({ args, ours: quick(args), zod: input.safeParse(args) }));

  test('accepts only what zod accepts, giving zod\'s data in zod\'s order', () => {
    const wrong = answers.filter(({ ours, zod }) => ours !== undefined && (!zod.success || JSON.stringify(Object.entries(ours)) !== JSON.stringify(Object.entries(zod.data))));
    expect(wrong.map(({ args }) => shape(args))).toEqual([]);
  });

  test('accepts everything zod accepts, but for a property set to undefined', () => {
    const missed = answers.filter(({ args, ours, zod }) => zod.success && ours === undefined && !hasUndefined(args));
    expect(missed.map(({ args }) => shape(args))).toEqual([]);
  });

  test('the draw holds both answers, at every length bound', () => {
    const accepted = answers.filter(({ ours }) => ours !== undefined).length;
    expect(accepted).toBeGreaterThan(drawn.length * 0.05);
    expect(drawn.length - accepted).toBeGreaterThan(drawn.length * 0.5);
    const messages = answers.map(({ args, ours }) => [args.message, ours !== undefined] as const)
      .filter((answer): answer is readonly [string, boolean] => typeof answer[0] === 'string')
      .map(([message, ok]) => [[...message].length, message.length, ok] as const);
    for (const length of [1, 100_000]) expect(messages.some(([points, , ok]) => points === length && ok)).toBe(true);
    for (const length of [0, 100_001]) expect(messages.some(([points]) => points === length)).toBe(true);
    // Past the maximum in units, within it in code points: where counting units alone would refuse.
    expect(messages.some(([points, units, ok]) => units > 100_000 && points <= 100_000 && ok)).toBe(true);
  });

  test('leaves a property set to undefined, and an array, to zod', () => {
    expect(quick({ message: 'hi', session_id: undefined })).toBeUndefined();
    expect(quick([] as unknown as Record<string, unknown>)).toBeUndefined();
    expect(quick({ message: 'hi', extra: 1 })).toEqual({ message: 'hi' });
  });
});

describe('a schema the quick check does not know', () => {
  test('is a TypeError naming the keyword, the type or the property', () => {
    expect(() => quickCheckOf({ type: 'object', properties: {}, additionalProperties: false }))
      .toThrow(new TypeError('A quick arguments check does not know the keyword additionalProperties (the arguments schema).'));
    expect(() => quickCheckOf({ type: 'object', properties: { id: { type: 'string', pattern: '^a' } } }))
      .toThrow(new TypeError('A quick arguments check does not know the keyword pattern (property id).'));
    expect(() => quickCheckOf({ type: 'object', properties: { n: { type: 'number' } } }))
      .toThrow(new TypeError('A quick arguments check knows strings and booleans, not "number" (property n).'));
    expect(() => quickCheckOf({ type: 'array' })).toThrow(new TypeError('A quick arguments check needs an object schema, got type "array".'));
    expect(() => quickCheckOf({ type: 'object', properties: { b: { type: 'boolean', maxLength: 2 } } }))
      .toThrow(new TypeError('Property b: a boolean has no length.'));
  });

  test('with required properties leaves their absence to zod', () => {
    const check = quickCheckOf({ type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] });
    expect(check({})).toBeUndefined();
    expect(check({ id: 'a' })).toEqual({ id: 'a' });
  });
});
