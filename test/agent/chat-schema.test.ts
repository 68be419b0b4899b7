import { describe, expect, test } from 'vitest';
import { INPUT_JSON_SCHEMA, OUTPUT_JSON_SCHEMA } from '../../lib/agent/chat-json-schema.js';
import { input, output } from '../../lib/agent/chat-schema.js';
import { toJsonSchema } from '../../lib/server/create-registry.js';

describe('chat_with_agent publishes the JSON Schemas its zod schemas define', () => {
  test('the input schema is what zod computes for the validator', () => {
    expect(INPUT_JSON_SCHEMA).toEqual(toJsonSchema(input, 'input'));
  });

  test('the output schema is what zod computes for the reply', () => {
    expect(OUTPUT_JSON_SCHEMA).toEqual(toJsonSchema(output, 'output'));
  });
});
