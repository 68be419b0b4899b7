/**
 * The checks lib/chars.ts lets every cold start run as loops give the answers of the grammars they replaced, kept
 * here as the regular expressions they were, on every string of a seeded random draw from the characters that
 * matter to each grammar (and a few that do not), and on the edge cases written out.
 */

import { describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { agentSkills } from '../lib/agent/skills.js';
import type { Agent } from '../lib/agent/types.js';
import { charClass } from '../lib/chars.js';
import { parseAuthority } from '../lib/http/authority.js';
import { isSkillName } from '../lib/protocol/skills.js';
import { isToolName } from '../lib/server/create-registry.js';
import { renderSkillMd } from '../lib/skills/frontmatter.js';
import { compileSkills } from '../lib/skills/skill.js';
import { seeded } from './support/seeded.js';

/** The grammars as they were written before (git show 5db2b95). */
const GRAMMAR = {
  toolName: /^[A-Za-z0-9_.-]{1,128}$/,
  skillName: /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/,
  segment: /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/,
  authority: /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/,
  plain: /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
  unprintable: /[\u007f-\u009f\u2028\u2029\ufeff]/g,
};
const slugByGrammar = (id: string) =>
  id.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64).replace(/-+$/, '') || 'agent';

/** A seeded draw (mulberry32), so that a failure repeats. */
function strings(alphabet: string, count: number, maxLength: number, seed = 22): string[] {
  const next = seeded(seed);
  const chars = [...alphabet];
  return Array.from({ length: count }, () => {
    const length = Math.floor(next() * (maxLength + 1));
    return Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join('');
  });
}

/** The strings of `drawn` on which `ours` and `grammar` disagree: none is the claim. */
const disagreements = (drawn: string[], ours: (s: string) => boolean, grammar: (s: string) => boolean) =>
  drawn.filter((s) => ours(s) !== grammar(s));

describe('a character class', () => {
  test('is written as a regular expression\'s bracket body: ranges, and a hyphen first or last as itself', () => {
    const cls = charClass('a-c_.-');
    expect([...'abc_.-'].every((c) => cls.has(c.charCodeAt(0)))).toBe(true);
    expect([...'dA/`'].some((c) => cls.has(c.charCodeAt(0)))).toBe(false);
    expect(cls.all('ab-c')).toBe(true);
    expect(cls.all('abd')).toBe(false);
    expect(cls.all('xab', 1)).toBe(true);
    expect(cls.all('ab', 1, 3)).toBe(false); // past the end is no member
    expect(cls.has('é'.charCodeAt(0))).toBe(false);
  });

  test('refuses a range out of order or beyond ASCII when it is made', () => {
    expect(() => charClass('z-a')).toThrow('charClass("z-a"): ASCII ranges only, in order.');
    expect(() => charClass('a-é')).toThrow('ASCII ranges only');
  });
});

describe('the checks agree with the grammars they replaced', () => {
  test('tool names (SEP-986)', () => {
    const drawn = [...strings('aZ09_.-/ %é', 20_000, 12), '', 'x'.repeat(128), 'x'.repeat(129), 'chat_with_agent'];
    expect(disagreements(drawn, isToolName, (s) => GRAMMAR.toolName.test(s))).toEqual([]);
    expect(drawn.filter(isToolName).length).toBeGreaterThan(1000);
  });

  test('skill names (Agent Skills)', () => {
    const drawn = [...strings('ab09--A_', 20_000, 8), '', '-', 'a', 'a'.repeat(64), 'a'.repeat(65), 'a-b', 'a--b', '-a', 'a-'];
    expect(disagreements(drawn, isSkillName, (s) => GRAMMAR.skillName.test(s))).toEqual([]);
    expect(drawn.filter(isSkillName).length).toBeGreaterThan(1000);
  });

  test('skill path segments (RFC 3986 pchar less : and @), through compileSkills', () => {
    const drawn = [...strings("aZ9-._~!$&'()*+,;=%%%fG:@ ?#", 5_000, 7), '%', '%4', '%41', '%4g', 'a%', '.', '..', '...'];
    const compiles = (segment: string) => {
      try {
        compileSkills([{ path: `${segment}/x`, frontmatter: { name: 'x', description: 'x' }, instructions: 'x' }]);
        return true;
      } catch {
        return false;
      }
    };
    const grammar = (s: string) => !s.includes('/') && GRAMMAR.segment.test(s) && s !== '.' && s !== '..';
    expect(disagreements(drawn, compiles, grammar)).toEqual([]);
    expect(drawn.filter(compiles).length).toBeGreaterThan(500);
  });

  test('Host authorities (RFC 3986 §3.2 without user info), through parseAuthority', () => {
    const drawn = [
      ...strings('aZ09-.:[]', 20_000, 10),
      ...strings('ab-.:8', 10_000, 12),
      '[::1]', '[::1]:3000', '[::1]]', '[]', '[', 'localhost:', ':80', 'a:123456', 'a.-b', 'a-.b', 'a..b', '.a', 'a.',
      '[::1]@evil.com', 'localhost:3100/evil', 'example.com:65535', 'example.com:65536',
    ];
    const grammar = (s: string) => s !== '' && GRAMMAR.authority.test(s) && URL.canParse(`http://${s}`);
    expect(disagreements(drawn, (s) => parseAuthority(s) !== undefined, grammar)).toEqual([]);
    expect(drawn.filter((s) => parseAuthority(s) !== undefined).length).toBeGreaterThan(1000);
  });

  test('the skill names made from agent ids', () => {
    const drawn = [...strings('aB9-_. é', 5_000, 80), '', '__', 'x'.repeat(70), `${'x'.repeat(63)}-y`, 'İstanbul'];
    const slugOf = (id: string) => agentSkills([{ profile: { id, name: id, description: 'x' } } as Agent])[0]!.frontmatter.name;
    expect(disagreements(drawn, (s) => slugOf(s) === slugByGrammar(s), () => true)).toEqual([]);
  });

  test('SKILL.md frontmatter: plain words stay plain, the rest is JSON with what YAML refuses raw escaped', () => {
    const before = (value: string) => GRAMMAR.plain.test(value) && !/^[0-9]/.test(value)
      && !['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null'].includes(value.toLowerCase())
      ? value
      : JSON.stringify(value).replace(GRAMMAR.unprintable, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const drawn = [...strings('aZ9_.- "\\\u007f\u0085\u009f\u00a0\u2028\u2029\ufeff\n', 5_000, 10), 'yes', 'No', 'v1.2', '1.2', 'null'];
    const line = (value: string) => renderSkillMd({ name: 'x', description: 'x', value }, '').split('\n')[3];
    expect(disagreements(drawn, (s) => line(s) === `value: ${before(s)}`, () => true)).toEqual([]);
    const read = drawn.map((value) => parseYaml(renderSkillMd({ name: 'x', description: 'x', value }, '').split('\n---\n')[0]!.slice('---\n'.length)).value);
    expect(read).toEqual(drawn);
  });
});
