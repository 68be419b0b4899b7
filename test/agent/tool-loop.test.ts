import { describe, expect, test } from 'vitest';
import { functionNames } from '../../lib/agent/tool-loop.js';
import { compilePatterns } from '../../lib/agent/tool-patterns.js';

describe('tool names as OpenAI function names', () => {
  test('names outside ^[a-zA-Z0-9_-]{1,64}$ are mapped, and every function name maps back to its one tool', () => {
    const tools = ['github.search_issues', 'agent:research', 'github__search_issues', 'plain', `long.${'x'.repeat(80)}`, `long.${'x'.repeat(81)}`];
    const { toFunction, toTool } = functionNames(tools);
    expect(toFunction.get('github.search_issues')).toBe('github__search_issues');
    expect(toFunction.get('agent:research')).toBe('agent__research');
    expect(toFunction.get('github__search_issues')).toBe('github__search_issues_2');
    expect(toFunction.get('plain')).toBe('plain');
    for (const name of tools) {
      expect(toFunction.get(name)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(toTool.get(toFunction.get(name)!)).toBe(name);
    }
  });
});

describe('tool patterns', () => {
  test.each([
    [['github.*'], 'github.search_issues', true],
    [['github.*'], 'githubx.search', false],
    [['notes.add'], 'notes.add', true],
    [['notes.add'], 'notes.addx', false],
    [['*'], 'docs.echo', true],
    [['*'], 'agent:research', false],
    [['*'], 'chat_with_agent', false],
    [['agent:*'], 'agent:research', true],
    [['agent:research'], 'agent:writer', false],
  ])('%j matching %s is %s', (patterns, name, expected) => {
    expect(compilePatterns(patterns)(name)).toBe(expected);
  });
});
