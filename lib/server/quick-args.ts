/**
 * A tool's arguments checked without its zod schema, for the arguments that schema certainly accepts: a cold
 * instance's first tools/call then answers without loading zod (~150 KB of ES modules that no code cache covers,
 * most of a first chat call; docs/performance.md "Issue 22 round 8: the first reply and the first call"). Made
 * from the JSON Schema a lazy schema publishes, which is what zod computed for it (a test holds each to it), for an
 * object of strings and booleans with length bounds; a schema with any other keyword is a TypeError at start-up
 * naming it. Arguments it cannot vouch for (a wrong type, a length out of bounds, a property set to undefined) are
 * left to zod, which words the refusal, so a caller sees the same answer either way.
 */

type Json = Record<string, unknown>;

/** What zod would give `args`, or undefined for zod to decide. */
export type QuickCheck = (args: Json) => Json | undefined;

interface Property {
  name: string;
  type: 'string' | 'boolean';
  min: number;
  max: number;
}

const OBJECT_KEYWORDS: ReadonlySet<string> = new Set(['$schema', 'type', 'properties', 'required', 'description', 'title']);
const PROPERTY_KEYWORDS: ReadonlySet<string> = new Set(['type', 'minLength', 'maxLength', 'description', 'title']);

/** Compiles the check for a published input schema; throws naming the first keyword it does not know. */
export function quickCheckOf(schema: Json): QuickCheck {
  unknownKeyword(schema, OBJECT_KEYWORDS, 'the arguments schema');
  if (schema.type !== 'object') throw new TypeError(`A quick arguments check needs an object schema, got type ${JSON.stringify(schema.type)}.`);
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, property]) => propertyOf(name, property));
  const required: ReadonlySet<string> = new Set((schema.required ?? []) as string[]);

  return (args) => {
    if (Array.isArray(args)) return undefined;
    // zod's object keeps the properties its shape names, in the shape's order, and drops the rest.
    const parsed: Json = {};
    for (const { name, type, min, max } of properties) {
      const value = args[name];
      if (value === undefined) {
        if (required.has(name) || name in args) return undefined;
        continue;
      }
      if (typeof value !== type) return undefined;
      if (type === 'string' && !withinLength(value as string, min, max)) return undefined;
      parsed[name] = value;
    }
    return parsed;
  };
}

/**
 * JSON Schema (and zod) measure a string in code points, a surrogate pair being one. A code point is one or two
 * UTF-16 units, so only a string longer in units than the maximum, or shorter than twice the minimum, is counted.
 */
function withinLength(text: string, min: number, max: number): boolean {
  const units = text.length;
  if (units <= max && units >= 2 * min) return true;
  let points = units;
  for (let i = 0; i < units - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      points--;
      i++;
    }
  }
  return points >= min && points <= max;
}

function propertyOf(name: string, property: Json): Property {
  unknownKeyword(property, PROPERTY_KEYWORDS, `property ${name}`);
  const { type, minLength = 0, maxLength = Infinity } = property;
  if (type !== 'string' && type !== 'boolean') throw new TypeError(`A quick arguments check knows strings and booleans, not ${JSON.stringify(type)} (property ${name}).`);
  if (type === 'boolean' && ('minLength' in property || 'maxLength' in property)) throw new TypeError(`Property ${name}: a boolean has no length.`);
  return { name, type, min: minLength as number, max: maxLength as number };
}

function unknownKeyword(schema: Json, known: ReadonlySet<string>, what: string): void {
  const keyword = Object.keys(schema).find((key) => !known.has(key));
  if (keyword !== undefined) throw new TypeError(`A quick arguments check does not know the keyword ${keyword} (${what}).`);
}
