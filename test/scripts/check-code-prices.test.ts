/**
 * `npm run build` builds paid entries as paid (scripts/check-code.ts): a price on a tool, a resource, a resource
 * template or a prompt asks for X402_PAY_TO as `paid: true` does, so the build stands in for it and checks the price
 * itself, as start-up does.
 */

import * as z from 'zod';
import { describe, expect, test } from 'vitest';
import { definePrompt, defineResource, defineResourceTemplate, defineTool, type Additions } from '../../lib/define/index.js';
import { checkCode, codeCheckEnv } from '../../scripts/check-code.js';

const priced: Record<string, Additions> = {
  'a tool with only a price': { tools: [defineTool({ name: 'lookup', description: 'Looks up.', input: z.object({}), price: '$0.05', run: () => 'found' })] },
  'a priced resource': { resources: [defineResource({ uri: 'report://today', name: 'today', price: '$0.05', read: () => 'report' })] },
  'a paid resource template': { resourceTemplates: [defineResourceTemplate({ uriTemplate: 'report://{day}', name: 'day', paid: true, read: () => 'report' })] },
  'a priced prompt': { prompts: [definePrompt({ name: 'brief', description: 'A brief.', price: '$0.05', get: () => 'Write.' })] },
};

describe('the build of paid entries', () => {
  test.each(Object.entries(priced))('%s passes the check, with the stand-in payee', (_name, code) => {
    expect(codeCheckEnv(code).X402_PAY_TO).toMatch(/^0x0{40}$/);
    expect(checkCode(code)).toMatchObject({ ok: true });
  });

  test('a prompt whose price is not a positive USD amount stops the build, naming it', () => {
    const code = { prompts: [definePrompt({ name: 'brief', description: 'A brief.', price: '$0', get: () => 'Write.' })] };
    expect(checkCode(code)).toEqual({ ok: false, line: expect.stringContaining('Prompt "brief" (tools/index.ts) has price "$0"') });
  });
});
