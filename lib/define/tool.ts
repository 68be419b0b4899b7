/**
 * `defineTool`: a deployment's own tool from a zod input (and optional output) schema, with the arguments and
 * the structured result typed from them. The schemas are the validator and the published JSON Schema
 * (lib/server/create-registry.ts); what `run` returns is checked against the output schema before the client sees
 * it (2025-11-25 server/tools §Output Schema: a server MUST return conforming structured results).
 * Failures are isError results (SEP-1303): a thrown ToolError says its message; anything else is logged for
 * the operator and the caller gets a generic line, never the detail.
 */

import type * as z from 'zod';
import type { RequestContext } from '../server/context.js';
import type { Content, Icon, InputRequired, ToolDefinition, ToolResult } from '../server/registry.js';
import { handlerContext, type HandlerContext } from './context.js';
import { createElicitation, InputPending, type Elicit } from './elicit.js';
import { ToolError } from './errors.js';

/** MCP tool annotations (2025-11-25 server/tools §ToolAnnotations): hints, never guarantees. */
export type ToolAnnotations = {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

export interface ToolContext extends HandlerContext {
  /**
   * Asks the user a question whose answer fits `schema` (a flat object of strings, numbers, booleans, enums).
   * On the 2026-07-28 wire the tool runs again from the top once the client has the answer: do nothing
   * before an `elicit` that must not happen twice.
   */
  elicit: Elicit;
}

/** What `run` returns: with an output schema, the structured result (text content is its JSON unless given). */
export type ToolReturn<O> = [O] extends [undefined]
  ? string | { content: Content[]; _meta?: Record<string, unknown> }
  : { structuredContent: O; content?: Content[]; _meta?: Record<string, unknown> };

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodType | undefined> {
  /** 1-128 characters of A-Z a-z 0-9 _ - . (SEP-986); dotted names read well: `notes.add`. */
  name: string;
  title?: string;
  description: string;
  input: I;
  output?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** OAuth scopes a caller needs to see and call it; absent means the server's default (AUTH_SCOPES). */
  scopes?: string[];
  /** Behind x402 at X402_PRICE (docs/payments.md "Paid calls (x402)"); start-up fails without X402_PAY_TO. */
  paid?: boolean;
  /** Behind x402 at this price per call (e.g. `'$0.05'`) instead of X402_PRICE; implies `paid`. */
  price?: `$${string}`;
  run(args: z.output<I>, ctx: ToolContext): ToolReturn<O extends z.ZodType ? z.input<O> : undefined> | Promise<ToolReturn<O extends z.ZodType ? z.input<O> : undefined>>;
}

/** A tool as the app serves it, with its payment setting for the app to apply. */
export interface UserTool extends ToolDefinition<any> {
  paid?: boolean;
  /** Its own price per call; lib/define/additions.ts checks it at start-up. */
  price?: `$${string}`;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodType | undefined = undefined>(spec: ToolSpec<I, O>): UserTool {
  const { run, output, paid, price, ...listed } = spec;
  return {
    ...listed,
    ...(output ? { output } : {}),
    ...(paid ? { paid } : {}),
    ...(price !== undefined ? { price } : {}),
    run: (args, ctx) => runTool(spec, args, ctx),
  };
}

async function runTool(spec: ToolSpec<z.ZodObject, z.ZodType | undefined>, args: unknown, request: RequestContext): Promise<ToolResult | InputRequired> {
  const elicitation = createElicitation(request);
  const ctx: ToolContext = Object.assign(handlerContext(request), { elicit: elicitation.elicit });
  try {
    return toResult(spec, await spec.run(args as never, ctx));
  } catch (error) {
    if (error instanceof InputPending) return elicitation.ask(error);
    if (error instanceof ToolError) return failure(error.message);
    if (request.signal.aborted) return failure(`Tool ${spec.name}: the call was cancelled.`);
    console.error(`[agent-mcp] tool ${spec.name} failed:`, error);
    return failure(`Tool ${spec.name} failed unexpectedly.`);
  }
}

function toResult(spec: ToolSpec<z.ZodObject, z.ZodType | undefined>, returned: unknown): ToolResult {
  if (typeof returned === 'string') return { content: [{ type: 'text', text: returned }] };
  const value = returned as { structuredContent?: unknown; content?: Content[]; _meta?: Record<string, unknown> };
  const meta = value._meta ? { _meta: value._meta } : {};
  if (!spec.output) return { content: value.content ?? [], ...meta };
  const checked = spec.output.safeParse(value.structuredContent);
  if (!checked.success) {
    console.error(`[agent-mcp] tool ${spec.name} returned a result its output schema refuses:`, checked.error.issues);
    return failure(`Tool ${spec.name} produced a result that does not match its output schema.`);
  }
  const structuredContent = checked.data;
  // Text content mirrors the structured result for clients that read only text (server/tools §Structured Content).
  return { content: value.content ?? [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent, ...meta };
}

function failure(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
