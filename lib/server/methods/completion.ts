/** completion/complete for prompt arguments and resource-template variables (server/utilities/completion). */

import { INVALID_PARAMS, McpError } from '../../protocol/errors.js';
import { isObject, ownValue } from '../../protocol/jsonrpc.js';
import { requireAccess } from '../access.js';
import type { RequestContext } from '../context.js';
import { findInSources, type Completer, type Registry } from '../registry.js';
import type { Server } from '../server.js';

const MAX_VALUES = 100;

export async function complete(server: Server, params: Record<string, unknown>, ctx: RequestContext) {
  const { ref, argument } = params;
  if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string') {
    throw new McpError(INVALID_PARAMS, 'completion/complete needs ref and argument.name.');
  }
  const completer = await findCompleter(server, ref, argument.name, ctx);
  const context = isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  const values = completer
    ? await completer(String(argument.value ?? ''), context as Record<string, string>, ctx)
    : [];
  return {
    completion: {
      values: values.slice(0, MAX_VALUES),
      total: values.length,
      hasMore: values.length > MAX_VALUES,
    },
  };
}

/** The completer of a prompt's or template's argument, ours or a mounted server's; an unknown reference is -32602. */
async function findCompleter(server: Server, ref: Record<string, unknown>, argument: string, ctx: RequestContext): Promise<Completer | undefined> {
  const find = async <T>(pick: (registry: Registry) => T | undefined) => pick(server.registry) ?? (await findInSources(server.sources, ctx, pick));
  if (ref.type === 'ref/prompt') {
    const prompt = await find((registry) => registry.prompts.get(String(ref.name)));
    if (!prompt) throw new McpError(INVALID_PARAMS, `Unknown prompt: ${String(ref.name)}.`);
    requireAccess(server, prompt, prompt.name, ctx);
    return ownValue(prompt.complete, argument);
  }
  if (ref.type === 'ref/resource') {
    const uri = String(ref.uri);
    const template = (await find((registry) => registry.templates.find((t) => t.definition.uriTemplate === uri)))?.definition;
    const entry = template ?? (await find((registry) => registry.resources.get(uri)));
    if (!entry) throw new McpError(INVALID_PARAMS, `Unknown resource: ${uri}.`);
    requireAccess(server, entry, uri, ctx);
    return ownValue(template?.complete, argument);
  }
  throw new McpError(INVALID_PARAMS, `Unknown reference type: ${String(ref.type)}.`);
}
