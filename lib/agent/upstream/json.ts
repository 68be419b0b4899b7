/**
 * Every JSON an upstream agent sends is read here, under one nesting bound (MCP_MAX_JSON_DEPTH, the request
 * body's): its bodies, its stream events, its cards, and the tool-call arguments a model writes as a JSON string
 * inside them (tool-loop.ts). JSON.parse copes with any depth, but what comes after it does not: copying,
 * stringifying or validating a value 5,000 levels deep overflows the stack. A value past the bound ends the turn
 * with a fixed sentence for the caller and a counted line for the operator (docs/security.md "Bounds").
 */

import { nestsDeeperThan } from '../../http/body.js';
import { DEFAULT_REQUEST_BOUNDS } from '../../http/bounds.js';
import { createCountedWarning } from '../../warn.js';
import { AgentError } from '../types.js';

/** Who sent the JSON, and the bound it is held to (absent: MCP_MAX_JSON_DEPTH's default). */
export interface JsonSource {
  agentId: string;
  maxJsonDepth?: number;
}

const tooDeep = createCountedWarning((agent, count) =>
  `refused ${count} upstream JSON value${count === 1 ? '' : 's'} nesting deeper than MCP_MAX_JSON_DEPTH (latest: agent ${agent})`);

/** The error that ends a turn whose upstream sent JSON nesting deeper than `maxDepth` levels, counted for the log. */
export function jsonTooDeep(agentId: string, maxDepth: number): AgentError {
  tooDeep.note(agentId);
  return new AgentError(`Agent ${agentId}: the upstream sent JSON nesting deeper than ${maxDepth} levels (MCP_MAX_JSON_DEPTH); the turn was stopped.`,
    'upstream_json_too_deep');
}

/**
 * `text` as a value: undefined when it is not JSON (each caller says what that means), an AgentError thrown when it
 * nests past the bound. A text shorter than twice the bound cannot nest past it (each level opens and closes), so
 * the walk is skipped for the short events that make up most streams.
 */
export function upstreamJson(source: JsonSource, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const maxDepth = source.maxJsonDepth ?? DEFAULT_REQUEST_BOUNDS.maxJsonDepth;
  if (text.length > 2 * maxDepth && opensMoreThan(text, maxDepth) && nestsDeeperThan(value, maxDepth)) throw jsonTooDeep(source.agentId, maxDepth);
  return value;
}

/**
 * Whether `text` holds more than `levels` `{` and `[` together (those inside strings too, which only sends more texts
 * to the walk): a value cannot nest deeper than the brackets that open it. A streamed chunk opens five or six, so
 * the walk, which copied every object's values, is skipped for it (issue 48).
 */
const OPENERS = ['{', '['] as const;

function opensMoreThan(text: string, levels: number): boolean {
  let opens = 0;
  for (const bracket of OPENERS) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) if (++opens > levels) return true;
  }
  return false;
}
