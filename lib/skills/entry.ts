/**
 * A skill's entry as `skills/list` and `skills/get` publish it (SEP-2640 §Enumeration): its SKILL.md URI, its
 * frontmatter verbatim, and every file with the SHA-256 digest and byte size of its raw (UTF-8) content.
 */

import { sha256Hex } from '../digest.js';
import type { CompiledSkill } from './skill.js';

export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: Array<{ uri: string; digest: string; size: number }>;
}

/** Skills never change while a server runs, so each entry is computed once, on first use. */
const entries = new WeakMap<CompiledSkill, Promise<SkillEntry>>();

async function computeEntry(skill: CompiledSkill): Promise<SkillEntry> {
  const encoder = new TextEncoder();
  const resources = await Promise.all(skill.files.map(async ({ uri, text }) => ({
    uri,
    digest: `sha256:${await sha256Hex(text)}`,
    size: encoder.encode(text).length,
  })));
  return { uri: skill.uri, frontmatter: skill.frontmatter, resources };
}

export function entryOf(skill: CompiledSkill): Promise<SkillEntry> {
  let entry = entries.get(skill);
  if (!entry) entries.set(skill, entry = computeEntry(skill));
  return entry;
}
