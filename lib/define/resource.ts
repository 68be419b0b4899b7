/**
 * `defineResource` and `defineResourceTemplate`: a deployment's own resources. `read` may return the text
 * itself, or content entries; a template's variables are typed from its URI template (`notes://{id}` → `id`).
 */

import type { Completer, Icon, ResourceContent, ResourceDefinition, ResourceTemplateDefinition } from '../server/registry.js';
import { handlerContext, type HandlerContext } from './context.js';

/** What a read returns: the text of the one resource read, or its content entries. */
export type ReadReturn = string | ResourceContent[];

/** The variable names of a level-1 URI template, e.g. `notes://{owner}/{id}` → 'owner' | 'id'. */
export type TemplateVariables<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | TemplateVariables<Rest> : never;

interface Described {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  /** OAuth scopes a caller needs to see and read it (and complete a template's variables); absent means the server's default (AUTH_SCOPES). */
  scopes?: string[];
  /** Each read behind x402 at X402_PRICE (docs/payments.md "Paid resources and prompts"); start-up fails without X402_PAY_TO. */
  paid?: boolean;
  /** Each read behind x402 at this price (e.g. `'$0.05'`) instead of X402_PRICE; implies `paid`. */
  price?: `$${string}`;
}

/** A resource as the app serves it, with its payment setting for the app to apply (lib/define/additions.ts). */
export interface UserResource extends ResourceDefinition {
  paid?: boolean;
  price?: `$${string}`;
}

/** A resource template as the app serves it, with its payment setting. */
export interface UserResourceTemplate extends ResourceTemplateDefinition {
  paid?: boolean;
  price?: `$${string}`;
}

export interface ResourceSpec extends Described {
  uri: string;
  read(ctx: HandlerContext): ReadReturn | Promise<ReadReturn>;
}

export interface ResourceTemplateSpec<T extends string> extends Described {
  uriTemplate: T;
  /** Values for a variable being typed, given those already chosen (completion/complete). */
  complete?: { [K in TemplateVariables<T>]?: (value: string, context: Record<string, string>, ctx: HandlerContext) => string[] | Promise<string[]> };
  read(uri: string, variables: Record<TemplateVariables<T>, string>, ctx: HandlerContext): ReadReturn | Promise<ReadReturn>;
}

export function defineResource(spec: ResourceSpec): UserResource {
  const { read, ...listed } = spec;
  return { ...listed, read: async (ctx) => contentsOf(spec.uri, spec.mimeType, await read(handlerContext(ctx))) };
}

export function defineResourceTemplate<T extends string>(spec: ResourceTemplateSpec<T>): UserResourceTemplate {
  const { read, complete, ...listed } = spec;
  type Complete = (value: string, context: Record<string, string>, ctx: HandlerContext) => string[] | Promise<string[]>;
  const completers = complete && Object.fromEntries(Object.entries<Complete | undefined>(complete).flatMap(([name, completer]) => completer ? [[
    name,
    ((value, context, ctx) => completer(value, context, handlerContext(ctx))) satisfies Completer,
  ]] : []));
  return {
    ...listed,
    ...(completers ? { complete: completers } : {}),
    read: async (uri, variables, ctx) => contentsOf(uri, spec.mimeType, await read(uri, variables as Record<TemplateVariables<T>, string>, handlerContext(ctx))),
  };
}

function contentsOf(uri: string, mimeType: string | undefined, returned: ReadReturn): ResourceContent[] {
  if (typeof returned !== 'string') return returned;
  return [{ uri, ...(mimeType ? { mimeType } : {}), text: returned }];
}
