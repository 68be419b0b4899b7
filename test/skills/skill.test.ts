/** Compiling skills: the SEP's and the Agent Skills specification's rules stop start-up, naming the skill. */

import { describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { compileSkills, type SkillDefinition } from '../../lib/skills/skill.js';

const skill = (overrides: Partial<SkillDefinition> = {}): SkillDefinition => ({
  path: 'git-workflow',
  frontmatter: { name: 'git-workflow', description: 'Follow the team\'s Git conventions.' },
  instructions: '# Git workflow\n',
  ...overrides,
});

describe('a bad skill definition is a TypeError naming it', () => {
  test.each<[string, Partial<SkillDefinition>, string]>([
    ['a name that is not the last path segment', { path: 'acme/git' }, 'Skill "acme/git": frontmatter.name must equal the last path segment "git".'],
    ['a name with capitals', { path: 'Git', frontmatter: { name: 'Git', description: 'x' } }, 'the name "Git" must be 1-64 lowercase letters'],
    ['a name with a doubled hyphen', { path: 'git--flow', frontmatter: { name: 'git--flow', description: 'x' } }, 'the name "git--flow"'],
    ['an empty path segment', { path: 'acme//git-workflow' }, '"" is not a valid path segment'],
    ['a missing description', { frontmatter: { name: 'git-workflow', description: '' } }, 'frontmatter.description must be a string of 1-1024 characters.'],
    ['a frontmatter value JSON cannot carry', { frontmatter: { name: 'git-workflow', description: 'x', created: new Date(0) } }, 'frontmatter must hold JSON values only.'],
    ['a reserved metadata key', { frontmatter: { name: 'git-workflow', description: 'x', metadata: { 'io.modelcontextprotocol/x': '1' } } }, 'uses the prefix MCP extensions reserve'],
    ['a file path climbing out', { files: { '../secrets.md': 'x' } }, 'file "../secrets.md": ".." is not a valid path segment'],
    ['a SKILL.md among the files', { files: { 'SKILL.md': 'x' } }, 'SKILL.md is written from frontmatter and instructions'],
    ['a path that is both file and directory', { files: { 'a': 'x', 'a/b.md': 'y' } }, '"skill://git-workflow/a" is both a file and a directory.'],
    ['more than 512 files', { files: Object.fromEntries(Array.from({ length: 512 }, (_, i) => [`f${i}.md`, ''])) }, 'has 513 files'],
  ])('%s', (_, overrides, message) => {
    expect(() => compileSkills([skill(overrides)])).toThrow(TypeError);
    expect(() => compileSkills([skill(overrides)])).toThrow(message);
  });

  test('the same skill twice, and a skill inside another, are refused', () => {
    expect(() => compileSkills([skill(), skill()])).toThrow('Duplicate skill "skill://git-workflow/SKILL.md".');
    const inner = skill({ path: 'git-workflow/hooks', frontmatter: { name: 'hooks', description: 'x' } });
    expect(() => compileSkills([skill(), inner])).toThrow('lies inside the skill at skill://git-workflow; skills do not nest here.');
  });
});

test('a top-level word is written plain unless YAML 1.1 or 1.2 would read it as something other than a string', () => {
  // The rule as one expression: PLAIN, and not a YAML boolean, null or number in any case.
  const yamlWouldMisread = /^(?:y|n|yes|no|on|off|true|false|null|~|[-+.]?(?:\d|\.inf|\.nan).*)$/i;
  const words = ['y', 'Y', 'n', 'yes', 'Yes', 'NO', 'on', 'Off', 'true', 'FALSE', 'null', 'Null', '1', '1.5', '0x1F', '2026-11-27',
    '12abc', 'name', 'description', 'demo', 'yesno', 'nope', 'truely', 'nullable', 'on-call', 'a.b', 'v1', 'inf', 'nan'];
  for (const word of words) {
    const [compiled] = compileSkills([skill({ frontmatter: { name: 'git-workflow', description: 'x', word } })]).skills;
    const line = compiled!.files[0]!.text.split('\n').find((l) => l.startsWith('word: '))!;
    expect(line, word).toBe(`word: ${yamlWouldMisread.test(word) ? JSON.stringify(word) : word}`);
    expect(parseYaml(`word: ${line.slice(6)}`).word, word).toBe(word);
  }
});

test('frontmatter values YAML would misread are quoted, so SKILL.md parses back to the same object', () => {
  const frontmatter = {
    name: 'git-workflow',
    description: 'Commit: small; push #often — and "quote" it',
    license: 'MIT',
    metadata: { version: '2.1.0', enabled: 'yes', none: 'null', tilde: '~', separator: 'a\u2028b', bell: 'ding\u0085' },
    'allowed-tools': ['Bash(git:*)', 'Read'],
    'x key': 1.5,
  };
  const [compiled] = compileSkills([skill({ frontmatter })]).skills;
  const text = compiled!.files[0]!.text;
  expect(text.startsWith('---\nname: git-workflow\n')).toBe(true);
  expect(parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!)).toEqual(frontmatter);
  expect(text.endsWith('---\n\n# Git workflow\n')).toBe(true);
});
