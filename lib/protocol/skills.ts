/**
 * Wire facts of the skills extension (SEP-2640, `io.modelcontextprotocol/skills`): its identifier, its three
 * methods, the `skill://` URI shape and the limits hosts may hold servers to. Agent Skills naming rules are
 * those of https://agentskills.io/specification#name-field.
 */

import { charClass } from '../chars.js';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

export const SKILLS_LIST = 'skills/list';
export const SKILLS_GET = 'skills/get';
/** Gated by the extension's `directoryRead: true` setting. */
export const DIRECTORY_READ = 'resources/directory/read';
export const SKILLS_METHODS = [SKILLS_LIST, SKILLS_GET, DIRECTORY_READ] as const;

export const SKILL_SCHEME = 'skill://';
export const SKILL_MD = 'SKILL.md';
export const SKILL_MD_MIME_TYPE = 'text/markdown';
/** A directory resource; directory URIs carry no trailing slash (SEP-2640 §Directory resources). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

const SKILL_NAME_CHARS = charClass('a-z0-9-');

/** 1-64 lowercase letters, digits and hyphens, no leading, trailing or doubled hyphen. */
export function isSkillName(name: string): boolean {
  return name.length >= 1 && name.length <= 64 && SKILL_NAME_CHARS.all(name)
    && !name.startsWith('-') && !name.endsWith('-') && !name.includes('--');
}
/** Frontmatter `metadata` keys under this prefix are reserved for MCP extensions. */
export const RESERVED_METADATA_PREFIX = 'io.modelcontextprotocol/';

/** A server SHOULD NOT serve a skill of more files, or more bytes in all (SEP-2640 §Resources). */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;
