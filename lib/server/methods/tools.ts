/**
 * tools/list and tools/call: validation failures are tool results (SEP-1303); unknown tools are -32602. A call reads
 * find → access → validate → limit → run, and how it runs is the features' (server.ts CallStrategy: lib/tasks/).
 */

import { decodeHeaderValue, H_PARAM_PREFIX } from '../../protocol/headers.js';
import {
  HEADER_MISMATCH, INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY, McpError, RETRY_AFTER_META,
} from '../../protocol/errors.js';
import { isObject } from '../../protocol/jsonrpc.js';
import { mayUse, requireAccess } from '../access.js';
import { REFUSAL, type RequestContext, type ToolLimitRefusal } from '../context.js';
import { cachedListPage } from '../list-cache.js';
import { paginate } from '../pagination.js';
import {
  findInSources, listTtl, mergeEntries, withRegistries, type CompiledTool, type ToolResult,
} from '../registry.js';
import type { Server, ToolOutcome } from '../server.js';
import { cacheHints } from './lifecycle.js';

export function listTools(server: Server, params: Record<string, unknown>, ctx: RequestContext) {
  return withRegistries(server.registry, server.sources, ctx, (registries) => cachedListPage(server, registries, params, ctx, () => {
    const all = mergeEntries(registries, (registry) => registry.tools)
      .filter((tool) => mayUse(server, tool.definition, ctx))
      .map((tool) => listingFor(tool, ctx));
    const { page, nextCursor } = paginate(all, params.cursor, server.pageSize);
    return { tools: page, ...(nextCursor ? { nextCursor } : {}), ...cacheHints(listTtl(server.listTtlMs, registries), ctx) };
  }));
}

export async function callTool(
  server: Server,
  params: Record<string, unknown>,
  ctx: RequestContext,
): Promise<ToolOutcome> {
  const name = params.name;
  const tool = typeof name !== 'string' ? undefined
    : server.registry.tools.get(name) ?? (await findInSources(server.sources, ctx, (registry) => registry.tools.get(name)));
  if (!tool) throw new McpError(INVALID_PARAMS, `Unknown tool: ${String(params.name)}.`);
  requireAccess(server, tool.definition, tool.definition.name, ctx);
  const args = params.arguments === undefined ? {} : params.arguments;
  if (!isObject(args)) throw new McpError(INVALID_PARAMS, 'params.arguments must be an object.');

  if (ctx.era === 'modern') {
    checkRequiredCapabilities(tool, ctx);
    checkHeaderParams(tool, args, ctx);
  }
  let parsed: unknown = args;
  if (tool.validate) {
    const checked = tool.validate(args);
    const result = checked instanceof Promise ? await checked : checked;
    if (!result.success) return invalidArguments(tool.definition.name, result.error.issues);
    parsed = result.data;
  }
  // A call that will run spends from its caller's per-tool limits, once: a later round of a 2026-07-28 call carries
  // the requestState its first round was given (verified and used once), and was counted then.
  const refused = ctx.requestState === undefined ? await ctx.limitTool?.(tool.definition.name) : undefined;
  if (refused) return overToolLimit(refused, ctx);
  // What must come first answers before the call runs or becomes a task (a paid tool's payment_required).
  const first = tool.definition.precheck && (await tool.definition.precheck(parsed, ctx));
  if (first) return first;
  // How it runs is the features' to say (lib/app.ts): as a task when asked, past a reply deadline; else the tool's run.
  return server.runTool({ server, tool, parsed, args, params }, ctx);
}

/** The legacy listing names a tool's task support (Tool.execution.taskSupport); the 2026-07-28 Tool has no such field. */
function listingFor(tool: CompiledTool, ctx: RequestContext): Record<string, unknown> {
  const support = tool.definition.task?.support;
  return support && ctx.era === 'legacy' ? { ...tool.listing, execution: { taskSupport: support } } : tool.listing;
}

/** A refusal of a per-tool limit: a tool result, never a JSON-RPC error, saying when to try again (docs/rate-limits.md). */
function overToolLimit(refusal: ToolLimitRefusal, ctx: RequestContext): ToolResult {
  ctx.observation?.noteToolFailure?.({ outcome: 'request_error', errorType: 'rate_limited' });
  ctx.observation?.noteRefusal?.(REFUSAL.rateLimit);
  return { content: [{ type: 'text', text: refusal.message }], isError: true, _meta: { [RETRY_AFTER_META]: refusal.retryAfterSeconds } };
}

function invalidArguments(name: string, issues: Array<{ path: PropertyKey[]; message: string }>): ToolResult {
  const detail = issues.map((i) => `${i.path.map(String).join('.') || '(arguments)'}: ${i.message}`).join('; ');
  return { content: [{ type: 'text', text: `Invalid arguments for tool ${name}: ${detail}` }], isError: true };
}

function checkRequiredCapabilities(tool: CompiledTool, ctx: RequestContext): void {
  const required = tool.definition.requiredClientCapabilities;
  if (!required) return;
  const missing = Object.fromEntries(Object.entries(required).filter(([name]) => !ctx.supports(name)));
  if (Object.keys(missing).length === 0) return;
  throw new McpError(MISSING_REQUIRED_CLIENT_CAPABILITY,
    `Tool ${tool.definition.name} requires client capabilities: ${Object.keys(missing).join(', ')}.`,
    { requiredCapabilities: missing });
}

/**
 * Arguments annotated with `x-mcp-header` are mirrored by clients into `Mcp-Param-{Name}`; the server must
 * reject a missing or different header with 400/-32020 (2026-07-28 server/tools §x-mcp-header).
 */
function checkHeaderParams(tool: CompiledTool, args: Record<string, unknown>, ctx: RequestContext): void {
  for (const { argument, header } of tool.headerParams) {
    const value = args[argument];
    const raw = ctx.paramHeaders?.[header];
    if (value === undefined || value === null) {
      if (raw !== undefined) mismatch(header, 'is present but the argument is not');
      continue;
    }
    if (raw === undefined) mismatch(header, 'is required');
    const decoded = decodeHeaderValue(raw!.trim());
    const same = typeof value === 'number' ? decoded !== undefined && decoded !== '' && Number(decoded) === value
      : decoded === String(value);
    if (!same) mismatch(header, `does not match argument ${argument}`);
  }
}

function mismatch(header: string, why: string): never {
  throw new McpError(HEADER_MISMATCH, `Header ${H_PARAM_PREFIX}${header} ${why}.`);
}
