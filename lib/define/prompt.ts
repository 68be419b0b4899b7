/**
 * `definePrompt`: a deployment's own prompt. Its arguments are a zod object of strings: the listing's
 * `arguments` (name, description, required) come from it, and `get` receives them parsed and typed. Arguments
 * the schema refuses are -32602 (2025-11-25 server/prompts §Error Handling).
 */

import type * as z from 'zod';
import { INVALID_PARAMS, McpError } from '../protocol/errors.js';
import type { Content, Icon, PromptArgument, PromptDefinition, PromptResult } from '../server/registry.js';
import { handlerContext, type HandlerContext } from './context.js';

/** A prompt's argument schema: prompt arguments travel as strings. */
export type PromptArguments = z.ZodObject<Record<string, z.ZodType<string | undefined>>>;

export interface PromptSpec<A extends PromptArguments> {
  name: string;
  title?: string;
  description: string;
  arguments?: A;
  icons?: Icon[];
  /** OAuth scopes a caller needs to see, get and complete it; absent means the server's default (AUTH_SCOPES). */
  scopes?: string[];
  /** Each get behind x402 at X402_PRICE (docs/payments.md "Paid resources and prompts"); start-up fails without X402_PAY_TO. */
  paid?: boolean;
  /** Each get behind x402 at this price (e.g. `'$0.05'`) instead of X402_PRICE; implies `paid`. */
  price?: `$${string}`;
  /** A string is one user message; or the messages themselves. */
  get(args: z.output<A>, ctx: HandlerContext): string | PromptResult | Promise<string | PromptResult>;
}

/** A prompt as the app serves it, with its payment setting for the app to apply (lib/define/additions.ts). */
export interface UserPrompt extends PromptDefinition {
  paid?: boolean;
  price?: `$${string}`;
}

export function definePrompt<A extends PromptArguments>(spec: PromptSpec<A>): UserPrompt {
  const { get, arguments: schema, ...listed } = spec;
  return {
    ...listed,
    ...(schema ? { arguments: argumentsOf(schema) } : {}),
    async get(args, ctx) {
      let parsed: unknown = args;
      if (schema) {
        const result = schema.safeParse(args);
        if (!result.success) {
          throw new McpError(INVALID_PARAMS, `Invalid arguments for prompt ${spec.name}: ${result.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}`);
        }
        parsed = result.data;
      }
      const returned = await get(parsed as z.output<A>, handlerContext(ctx));
      if (typeof returned !== 'string') return returned;
      const content: Content = { type: 'text', text: returned };
      return { messages: [{ role: 'user', content }] };
    },
  };
}

function argumentsOf(schema: PromptArguments): PromptArgument[] {
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    ...(field.description ? { description: field.description } : {}),
    required: !field.safeParse(undefined).success,
  }));
}
