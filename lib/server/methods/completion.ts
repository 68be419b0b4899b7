/** completion/complete for prompt arguments and resource-template variables (server/utilities/completion). */

import { INVALID_PARAMS, McpError } from '../../protocol/errors.js';
import { isObject } from '../../protocol/jsonrpc.js';
import type { Completer } from '../registry.js';
import type { Server } from '../server.js';

const MAX_VALUES = 100;

export async function complete(server: Server, params: Record<string, unknown>) {
  const { ref, argument } = params;
  if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string') {
    throw new McpError(INVALID_PARAMS, 'completion/complete needs ref and argument.name.');
  }
  const completer = findCompleter(server, ref, argument.name);
  const context = isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  const values = completer
    ? await completer(String(argument.value ?? ''), context as Record<string, string>)
    : [];
  return {
    completion: {
      values: values.slice(0, MAX_VALUES),
      total: values.length,
      hasMore: values.length > MAX_VALUES,
    },
  };
}

function findCompleter(server: Server, ref: Record<string, unknown>, argument: string): Completer | undefined {
  if (ref.type === 'ref/prompt') {
    const prompt = server.registry.prompts.get(String(ref.name));
    if (!prompt) throw new McpError(INVALID_PARAMS, `Unknown prompt: ${String(ref.name)}.`);
    return prompt.complete?.[argument];
  }
  if (ref.type === 'ref/resource') {
    const template = server.registry.templates.find((t) => t.definition.uriTemplate === ref.uri);
    if (!template && !server.registry.resources.has(String(ref.uri))) {
      throw new McpError(INVALID_PARAMS, `Unknown resource: ${String(ref.uri)}.`);
    }
    return template?.definition.complete?.[argument];
  }
  throw new McpError(INVALID_PARAMS, `Unknown reference type: ${String(ref.type)}.`);
}
