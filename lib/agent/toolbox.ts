/**
 * The team's tools as one agent turn uses them (docs/agents.md "Give your agent tools"):
 * - as the caller: tools are listed and called through the official client on an in-process transport carrying
 *   the caller's principal, so the agent sees and calls exactly what its caller could, scopes included;
 * - only what the agent's patterns name (tool-patterns.ts), and never a paid tool: agent-mcp does not pay on the
 *   caller's behalf, so paid tools are not offered and a call to one is refused;
 * - another agent is a tool (`agent:<id>`), one level deeper; the depth is ours (the chain this turn runs in),
 *   never an argument, so a model cannot reset it; at the depth limit agents are no longer offered, and an agent
 *   is never offered itself or an agent already in its chain (`agent:*` means every other agent);
 * - every call spends from the request's budget (budget.ts): past AGENT_MAX_TOOL_CALLS_TOTAL a call is answered
 *   "not run", and a tool of the team runs only in one of the request's AGENT_MAX_PARALLEL_CALLS places;
 * - every failure (an isError result, a JSON-RPC error, bad arguments) is an outcome the model reads, every call
 *   is recorded for the caller, and only the caller's cancellation ends a call early.
 */

import type { Client, Tool } from '@modelcontextprotocol/client';
import { PRICE_META_KEY } from '../pay/with-payment.js';
import type { LimitTool, Principal } from '../server/context.js';
import type { InProcessLimits, InProcessTransport } from '../server/in-process.js';
import { createCountedWarning } from '../warn.js';
import type { RequestBudget } from './budget.js';
import type { ToolLimits } from './config.js';
import { AGENT_TOOL_PREFIX, compilePatterns } from './tool-patterns.js';
import type { AgentProfile, AgentTools, OfferedTool, ToolOutcome } from './types.js';

/** One call as the caller sees it in structuredContent: who made it, what, and how it went. */
export interface ToolCallRecord {
  /** The agents the call was made in, outermost first, e.g. "research → writer". */
  chain: string;
  name: string;
  /** The arguments as JSON, cut to ARGUMENTS_CHARS. */
  arguments: string;
  ok: boolean;
  /** The variable of the request's bound that refused the call, when one did. */
  limit?: string;
}

export interface ToolboxOptions {
  patterns: readonly string[];
  principal?: Principal;
  /** The caller's per-tool limits (RATE_LIMIT_TOOLS), which the agent's calls spend from as the caller's own do. */
  limitTool?: LimitTool;
  /** An in-process transport on the app, as `principal`, spending from `limits`. */
  connect(principal?: Principal, limits?: InProcessLimits): InProcessTransport;
  /** The agents `agent:<id>` may name. */
  agents: ReadonlyMap<string, AgentProfile>;
  /** Runs agent `id` on `message` one level deeper, as the same caller. */
  askAgent(id: string, message: string): Promise<ToolOutcome>;
  /** The agents this turn runs in, outermost first; its length is the depth. */
  chain: readonly string[];
  limits: ToolLimits;
  /** How long one tool call may go without progress. */
  timeoutMs: number;
  /** The request's budget, which every call spends from. */
  budget: Pick<RequestBudget, 'spendToolCall' | 'place' | 'tokensCounted'>;
  signal: AbortSignal;
  note(message: string): void;
  record(call: ToolCallRecord): void;
}

const ARGUMENTS_CHARS = 200;
const MAX_LIST_PAGES = 50;
const AGENT_INPUT = {
  type: 'object',
  properties: { message: { type: 'string', description: 'Your message to the agent, in natural language.' } },
  required: ['message'],
};

const warnedPatterns = new Set<string>();
const depthLimit = createCountedWarning((chain, count) => `withheld agents from ${count} turn(s) at AGENT_MAX_DEPTH (latest chain: ${chain})`);
const resultCut = createCountedWarning((detail, count) =>
  `cut ${count} tool result(s) sent to a model over AGENT_TOOL_RESULT_MAX_BYTES (latest: ${detail})`);

export interface Toolbox extends AgentTools {
  close(): Promise<void>;
}

export function createToolbox(options: ToolboxOptions): Toolbox {
  const { limits, signal, chain } = options;
  const matches = compilePatterns(options.patterns);
  const who = chain.join(' → ');
  const atDepthLimit = chain.length >= limits.maxDepth;
  let client: Promise<Client> | undefined;
  let offered: Promise<Map<string, OfferedTool>> | undefined;
  const paid = new Set<string>();

  const open = () => (client ??= import('@modelcontextprotocol/client').then(async ({ Client }) => {
    const opened = new Client({ name: `agent-mcp agent ${chain.at(-1)}`, version: '0.1.0' });
    await opened.connect(options.connect(options.principal, { limitTool: options.limitTool }));
    return opened;
  }));

  async function listAll(): Promise<Map<string, OfferedTool>> {
    const tools: Tool[] = [];
    const mcp = await open();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await mcp.listTools(cursor === undefined ? {} : { cursor }, { signal });
      tools.push(...listed.tools);
      if (!(cursor = listed.nextCursor)) break;
    }
    const found = new Map<string, OfferedTool>();
    for (const tool of tools) {
      if (!matches(tool.name)) continue;
      if (tool._meta?.[PRICE_META_KEY] !== undefined) paid.add(tool.name);
      else found.set(tool.name, { name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema as Record<string, unknown> });
    }
    for (const [id, profile] of options.agents) {
      const name = `${AGENT_TOOL_PREFIX}${id}`;
      if (!matches(name) || chain.includes(id)) continue;
      if (atDepthLimit) depthLimit.note(who);
      else found.set(name, { name, description: `Ask ${profile.name}: ${profile.description}`, inputSchema: AGENT_INPUT });
    }
    warnUnmatched(tools.map((t) => t.name));
    return found;
  }

  /** A tool pattern can only be checked against a list (mounts connect lazily): say once which match nothing. */
  function warnUnmatched(names: string[]): void {
    for (const pattern of options.patterns) {
      const key = `${chain.at(-1)}\u0000${pattern}`;
      if (pattern.startsWith(AGENT_TOOL_PREFIX) || warnedPatterns.has(key)) continue;
      if (names.some(compilePatterns([pattern]))) continue;
      warnedPatterns.add(key);
      console.warn(`[agent-mcp] agent ${chain.at(-1)}: tool pattern "${pattern}" matches no tool its caller can see (a mount down or misnamed, or a missing scope).`);
    }
  }

  async function run(name: string, args: unknown): Promise<ToolOutcome> {
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return { ok: false, text: `Tool ${name} was not called: its arguments must be a JSON object${typeof args === 'string' ? ', and this is not valid JSON' : ''}.` };
    }
    const tools = await (offered ??= listAll());
    if (paid.has(name)) return { ok: false, text: `Tool ${name} was refused: it is a paid tool, and agent-mcp never pays on the caller's behalf.` };
    if (!tools.has(name)) return { ok: false, text: notOffered(name) };
    if (name.startsWith(AGENT_TOOL_PREFIX)) {
      const { message } = args as { message?: unknown };
      if (typeof message !== 'string' || !message) return { ok: false, text: `Tool ${name} was not called: it needs a non-empty "message" string.` };
      return options.askAgent(name.slice(AGENT_TOOL_PREFIX.length), message);
    }
    const release = await options.budget.place();
    try {
      const result = await (await open()).callTool({ name, arguments: args as Record<string, unknown> },
        { signal, timeout: options.timeoutMs, resetTimeoutOnProgress: true });
      return { ok: !result.isError, text: resultText(result) };
    } catch (error) {
      if (signal.aborted) throw error;
      return { ok: false, text: `Tool ${name} failed: ${(error as Error).message}` };
    } finally {
      release();
    }
  }

  /** Why a name the model asked for is not on offer: an agent in the chain or past the depth limit, or not one of its tools. */
  function notOffered(name: string): string {
    if (name.startsWith(AGENT_TOOL_PREFIX) && matches(name)) {
      const id = name.slice(AGENT_TOOL_PREFIX.length);
      if (chain.includes(id)) return `Tool ${name} was refused: agent ${id} is already in this chain (${who}), and an agent never asks itself or an agent that asked it.`;
      if (atDepthLimit) return `Tool ${name} was refused: agents may call agents at most ${limits.maxDepth} deep (AGENT_MAX_DEPTH), and this chain is ${who}.`;
    }
    return `Tool ${name} is not one of the tools you may use.`;
  }

  return {
    list: async () => [...(await (offered ??= listAll())).values()],
    async call(name, args) {
      if (signal.aborted) throw signal.reason;
      // Recorded when asked for, so the caller's list keeps the model's order though calls run in parallel.
      const record: ToolCallRecord = { chain: who, name, arguments: summarize(args), ok: false };
      options.record(record);
      await options.budget.tokensCounted();
      const spent = options.budget.spendToolCall(name);
      if (spent) {
        record.limit = spent.limit;
        return spent;
      }
      options.note(`${who}: calling ${name}…`);
      const outcome = await run(name, args);
      record.ok = outcome.ok;
      if (outcome.limit) record.limit = outcome.limit;
      return { ...outcome, text: cut(outcome.text, limits.maxResultBytes, name) };
    },
    note: options.note,
    async close() {
      if (client) await (await client.catch(() => undefined))?.close().catch(() => undefined);
    },
  };
}

/** A tool result as text: its text blocks, else its structured content as JSON; other blocks are named. */
function resultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const blocks = (Array.isArray(result.content) ? result.content : []) as Array<{ type: string; text?: string }>;
  const texts = blocks.map((b) => (b.type === 'text' ? b.text ?? '' : `[${b.type}]`));
  if (blocks.some((b) => b.type === 'text') || result.structuredContent === undefined) return texts.join('\n');
  return JSON.stringify(result.structuredContent);
}

function summarize(args: unknown): string {
  const text = typeof args === 'string' ? args : JSON.stringify(args) ?? '';
  return text.length > ARGUMENTS_CHARS ? `${text.slice(0, ARGUMENTS_CHARS - 1)}…` : text;
}

/** At most `maxBytes` of UTF-8, cut on a character boundary, saying so. */
function cut(text: string, maxBytes: number, name: string): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength <= maxBytes) return text;
  resultCut.note(name);
  const head = new TextDecoder().decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, '');
  return `${head}\n[cut: the result exceeded ${maxBytes} bytes]`;
}
