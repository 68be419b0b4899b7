/**
 * Which tools an agent may use, as its configuration names them: a tool name (`notes.add`), a pattern where `*`
 * stands for any run of characters (`github.*`, `*`), or another agent (`agent:research`, `agent:*`).
 * Patterns are checked for shape at start-up, and `agent:<id>` for an agent that exists; a tool pattern can
 * only be checked against a tool list, which mounts produce lazily (toolbox.ts warns when one matches nothing).
 */

/** The prefix that makes another agent a tool. */
export const AGENT_TOOL_PREFIX = 'agent:';
/** The chat tool is never offered under its own name: `agent:<id>` is the way, so depth stays ours to count. */
export const CHAT_TOOL_NAME = 'chat_with_agent';

const TOOL_PATTERN = /^[A-Za-z0-9_.*-]{1,128}$/;
const AGENT_PATTERN = /^agent:(?:\*|[A-Za-z0-9_.-]{1,64})$/;

/** Why `pattern` is not a tool pattern, or undefined when it is one. */
export function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'must be a string';
  if (pattern.startsWith(AGENT_TOOL_PREFIX)) return AGENT_PATTERN.test(pattern) ? undefined : 'agent:<id> names an agent id or *';
  return TOOL_PATTERN.test(pattern) ? undefined : 'is a tool name, or a pattern of tool-name characters and *';
}

/** The agent ids `patterns` name explicitly (`agent:<id>`, not `agent:*`). */
export function namedAgents(patterns: readonly string[]): string[] {
  return patterns.filter((p) => p.startsWith(AGENT_TOOL_PREFIX) && p !== `${AGENT_TOOL_PREFIX}*`).map((p) => p.slice(AGENT_TOOL_PREFIX.length));
}

/** A predicate over tool names (MCP names, `agent:<id>` included) for a list of patterns. */
export function compilePatterns(patterns: readonly string[]): (name: string) => boolean {
  const expressions = patterns.map(toRegExp);
  return (name) => name !== CHAT_TOOL_NAME && expressions.some((e) => e.test(name));
}

export function toRegExp(pattern: string): RegExp {
  const source = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  // A tool pattern never matches an agent tool: `*` means "every tool", not "every tool and every agent".
  return new RegExp(pattern.startsWith(AGENT_TOOL_PREFIX) ? `^${source}$` : `^(?!${AGENT_TOOL_PREFIX})${source}$`);
}
