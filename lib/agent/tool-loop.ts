/**
 * Function calling over the team's tools, the same loop for every format that calls tools: the tools an agent may
 * use go up as function definitions; when the model answers with calls, they run (in parallel) through the agent's
 * toolbox, and the model is asked again with the turn so far, until it answers with text or has asked for tools
 * `maxSteps` times (then the turn fails: a caller is better served by a clear isError than by a half-finished answer
 * that reads as final). The turn so far is format-neutral (ToolStep): each adapter writes it in its own wire
 * (OpenAI `tool_calls` and `tool` messages, Responses `function_call` / `function_call_output` items, Anthropic
 * `tool_use` / `tool_result` blocks).
 *
 * Names: function names must match ^[a-zA-Z0-9_-]{1,64}$ in all three wires, tool names allow `.` (and ours `agent:`),
 * so each character outside that set becomes `__` (`github.search_issues` → `github__search_issues`,
 * `agent:research` → `agent__research`), cut to 64 with `_2`, `_3`… on a clash. The mapping is a table kept
 * for the turn, so a function name maps back to exactly the tool it was made from.
 */

import { createCountedWarning } from '../warn.js';
import { AgentError, callCancelled, type AgentTools, type ToolOutcome } from './types.js';
import { upstreamJson, type JsonSource } from './upstream/json.js';
import type { OnText } from './push.js';

/** A tool as the model is offered it, before a format writes it in its wire. */
export interface FunctionSpec {
  name: string;
  description: string;
  /** The tool's published JSON Schema of its arguments. */
  parameters: Record<string, unknown>;
}

/** A call the model asked for, its fragments put together; `id` is the upstream's id of the call. */
export interface FunctionCall {
  id: string;
  name: string;
  arguments: string;
}

/** One round of the loop: what the model said and asked for, and what each call gave back (`results[i]` answers `calls[i]`). */
export interface ToolStep {
  text: string;
  calls: FunctionCall[];
  results: string[];
}

/** One model request: pushes its text to `onText`, then says which calls it asked for (none: this is the answer). */
export type Complete = (steps: readonly ToolStep[], functions: FunctionSpec[] | undefined, onText: OnText) =>
  Promise<{ text: string; calls: FunctionCall[] }>;

export interface ToolLoopOptions {
  agentId: string;
  tools: AgentTools;
  complete: Complete;
  maxSteps: number;
  maxCallsPerStep: number;
  /** The deepest a call's arguments may nest (MCP_MAX_JSON_DEPTH; upstream/json.ts): they are upstream JSON too. */
  maxJsonDepth: number | undefined;
  signal: AbortSignal;
}

const FUNCTION_NAME_CHARS = 64;
const stepLimit = createCountedWarning((agent, count) => `stopped ${count} agent turn(s) at AGENT_MAX_TOOL_STEPS (latest: agent ${agent})`);
const callLimit = createCountedWarning((agent, count) => `left ${count} step(s)' extra tool calls unrun over AGENT_MAX_TOOL_CALLS (latest: agent ${agent})`);

const callsLimit = createCountedWarning((agent, count) =>
  `stopped ${count} agent repl${count === 1 ? 'y' : 'ies'} asking for more tool calls than AGENT_MAX_TOOL_CALLS_PER_REPLY (latest: agent ${agent})`);

/** The error that ends a turn whose reply asks for more than `max` calls (AGENT_MAX_TOOL_CALLS_PER_REPLY), counted for the log. */
export function tooManyCalls(agentId: string, max: number): AgentError {
  callsLimit.note(agentId);
  return new AgentError(`Agent ${agentId} asked for more than ${max} tool calls in one reply (AGENT_MAX_TOOL_CALLS_PER_REPLY is ${max}); the turn was stopped.`);
}

/** The loop, each request's text pushed to `onText` as it is read (push.ts); settles when the model has answered. */
export async function runToolLoop(options: ToolLoopOptions, onText: OnText): Promise<void> {
  const { agentId, tools, complete, maxSteps, maxCallsPerStep, signal } = options;
  const source: JsonSource = { agentId, maxJsonDepth: options.maxJsonDepth };
  const offered = await tools.list();
  const names = functionNames(offered.map((tool) => tool.name));
  // No tools to offer (none matched, or none the caller may use): the request is the one a tool-less agent sends.
  const functions = offered.length === 0 ? undefined
    : offered.map((tool): FunctionSpec => ({ name: names.toFunction.get(tool.name)!, description: tool.description, parameters: tool.inputSchema }));
  const steps: ToolStep[] = [];
  for (let step = 0; ; step++) {
    const { text, calls } = await complete(steps, functions, onText);
    if (calls.length === 0) return;
    if (step >= maxSteps) {
      stepLimit.note(agentId);
      throw new AgentError(`Agent ${agentId} asked for tools ${maxSteps} times without answering (AGENT_MAX_TOOL_STEPS is ${maxSteps}); the turn was stopped.`);
    }
    if (calls.length > maxCallsPerStep) callLimit.note(agentId);
    // Every call's arguments are read before any runs: one past the depth bound stops the turn with nothing run.
    const args = calls.slice(0, maxCallsPerStep).map((call) => parseArguments(source, call.arguments));
    const outcomes = await Promise.all(calls.map((call, i): Promise<ToolOutcome> => i < maxCallsPerStep
      ? tools.call(names.toTool.get(call.name) ?? call.name, args[i])
      : Promise.resolve({ ok: false, text: `Not run: at most ${maxCallsPerStep} tool calls are run per step (AGENT_MAX_TOOL_CALLS).` })));
    if (signal.aborted) throw callCancelled(agentId);
    steps.push({ text, calls, results: outcomes.map((outcome) => outcome.text) });
  }
}

/** The arguments as a value, or the raw text when they are not JSON (the toolbox answers the model why). */
function parseArguments(source: JsonSource, text: string): unknown {
  if (text.trim() === '') return {};
  const value = upstreamJson(source, text);
  return value === undefined ? text : value;
}

/** The reversible name table of a turn: tool name → function name and back. */
export function functionNames(toolNames: string[]) {
  const toFunction = new Map<string, string>();
  const toTool = new Map<string, string>();
  for (const name of toolNames) {
    const base = name.replace(/[^A-Za-z0-9_-]/g, '__').slice(0, FUNCTION_NAME_CHARS);
    let candidate = base;
    for (let n = 2; toTool.has(candidate); n++) candidate = `${base.slice(0, FUNCTION_NAME_CHARS - String(n).length - 1)}_${n}`;
    toFunction.set(name, candidate);
    toTool.set(candidate, name);
  }
  return { toFunction, toTool };
}
