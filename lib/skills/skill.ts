/**
 * Skills a server serves (SEP-2640): each a directory of text files under `skill://<path>/`, its SKILL.md
 * written from a frontmatter object and a body. Compiling checks every rule the SEP and the Agent Skills
 * specification make of a skill's shape, so a bad definition stops start-up with a TypeError naming it, and
 * lays out the files as resources and the directories `resources/directory/read` answers for.
 */

import {
  DIRECTORY_MIME_TYPE, MAX_SKILL_BYTES, MAX_SKILL_FILES, RESERVED_METADATA_PREFIX, SKILL_MD, SKILL_MD_MIME_TYPE,
  SKILL_SCHEME, isSkillName,
} from '../protocol/skills.js';
import { HEX_DIGITS, charClass } from '../chars.js';
import { renderSkillMd, type Frontmatter } from './frontmatter.js';

/** A skill a deployment serves (docs/skills.md). */
export interface SkillDefinition {
  /** Where it sits under `skill://`: `git-workflow`, or `acme/billing/refunds`; the last segment is its name. */
  path: string;
  /** SKILL.md's YAML frontmatter: `name` (the last path segment) and `description` at least, JSON values only. */
  frontmatter: Frontmatter;
  /** SKILL.md's markdown body, below the frontmatter. */
  instructions: string;
  /** Supporting text files by path inside the skill, e.g. `{ 'references/FORMS.md': '…' }`. */
  files?: Record<string, string>;
  /** OAuth scopes a caller needs to see and read the skill and its files; absent means the server's default. */
  scopes?: string[];
}

/** One file of a skill as served. */
export interface SkillFile {
  uri: string;
  text: string;
  mimeType: string;
}

export interface CompiledSkill {
  /** The URI of its SKILL.md; the skill's identity within this server. */
  uri: string;
  /** Its directory, `skill://<path>`, without a trailing slash. */
  root: string;
  frontmatter: Frontmatter;
  /** SKILL.md first, then the supporting files in definition order. */
  files: SkillFile[];
  /** As its definition names them (lib/server/access.ts). */
  scopes?: string[];
}

/** A child as `resources/directory/read` lists it: a file's resource metadata, or a subdirectory. */
export interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  description?: string;
}

export interface SkillCatalog {
  /** In definition order: the order of `skills/list`. */
  skills: CompiledSkill[];
  byUri: Map<string, CompiledSkill>;
  /** Every directory under the skills (prefixes, skill roots, subdirectories) and its direct children. */
  directories: Map<string, DirectoryChild[]>;
}

/** RFC 3986 unreserved and sub-delims: pchar less `:` and `@`, so the first segment is also a reg-name (the authority). */
const SEGMENT_CHARS = charClass("A-Za-z0-9._~!$&'()*+,;=-");
const MAX_DESCRIPTION = 1024;

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: SKILL_MD_MIME_TYPE, markdown: SKILL_MD_MIME_TYPE, txt: 'text/plain', json: 'application/json',
  yaml: 'application/yaml', yml: 'application/yaml', csv: 'text/csv', html: 'text/html', xml: 'application/xml',
  js: 'text/javascript', mjs: 'text/javascript', ts: 'text/x-typescript', py: 'text/x-python', sh: 'text/x-shellscript',
};

function mimeTypeOf(path: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return (extension && MIME_TYPES[extension]) || 'text/plain';
}

/** One or more of SEGMENT_CHARS or percent-encodings (`%` and two hex digits). */
function isSegment(segment: string): boolean {
  for (let i = 0; i < segment.length; i++) {
    if (segment[i] !== '%') {
      if (!SEGMENT_CHARS.has(segment.charCodeAt(i))) return false;
    } else if (HEX_DIGITS.all(segment, i + 1, i + 3)) { // past the end is no digit
      i += 2;
    } else {
      return false;
    }
  }
  return segment.length > 0;
}

function segmentsOf(path: string, what: string): string[] {
  const segments = path.split('/');
  const bad = segments.find((s) => !isSegment(s) || s === '.' || s === '..');
  if (bad !== undefined) throw new TypeError(`${what}: "${bad}" is not a valid path segment (letters, digits, - . _ ~ and sub-delims, no empty, . or .. segments).`);
  return segments;
}

function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  return typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && Object.values(value).every(isJsonValue);
}

function checkFrontmatter(label: string, frontmatter: Frontmatter, name: string): void {
  if (frontmatter.name !== name) throw new TypeError(`${label}: frontmatter.name must equal the last path segment "${name}".`);
  if (!isSkillName(name)) throw new TypeError(`${label}: the name "${name}" must be 1-64 lowercase letters, digits and single hyphens, not at either end.`);
  const { description } = frontmatter;
  if (typeof description !== 'string' || description.length === 0 || description.length > MAX_DESCRIPTION) {
    throw new TypeError(`${label}: frontmatter.description must be a string of 1-${MAX_DESCRIPTION} characters.`);
  }
  // Only JSON values survive the trip to SKILL.md and back; undefined, functions and dates would not.
  if (!isJsonValue(frontmatter)) {
    throw new TypeError(`${label}: frontmatter must hold JSON values only.`);
  }
  const metadata = frontmatter.metadata;
  const reserved = metadata && typeof metadata === 'object' ? Object.keys(metadata).find((k) => k.startsWith(RESERVED_METADATA_PREFIX)) : undefined;
  if (reserved) throw new TypeError(`${label}: frontmatter.metadata key "${reserved}" uses the prefix MCP extensions reserve.`);
}

function compileSkill(definition: SkillDefinition): CompiledSkill {
  const label = `Skill "${definition.path}"`;
  const segments = segmentsOf(definition.path, label);
  checkFrontmatter(label, definition.frontmatter, segments.at(-1)!);
  const root = `${SKILL_SCHEME}${definition.path}`;
  const files: SkillFile[] = [
    { uri: `${root}/${SKILL_MD}`, text: renderSkillMd(definition.frontmatter, definition.instructions), mimeType: SKILL_MD_MIME_TYPE },
  ];
  for (const [path, text] of Object.entries(definition.files ?? {})) {
    segmentsOf(path, `${label}, file "${path}"`);
    if (path === SKILL_MD) throw new TypeError(`${label}: SKILL.md is written from frontmatter and instructions; leave it out of files.`);
    if (typeof text !== 'string') throw new TypeError(`${label}: file "${path}" must be a string of text.`);
    files.push({ uri: `${root}/${path}`, text, mimeType: mimeTypeOf(path) });
  }
  const paths = files.map((file) => file.uri);
  const shadowed = paths.find((path) => paths.some((other) => other.startsWith(`${path}/`)));
  if (shadowed) throw new TypeError(`${label}: "${shadowed}" is both a file and a directory.`);
  const bytes = files.reduce((sum, file) => sum + new TextEncoder().encode(file.text).length, 0);
  if (files.length > MAX_SKILL_FILES || bytes > MAX_SKILL_BYTES) {
    throw new TypeError(`${label} has ${files.length} files and ${bytes} bytes; a skill should stay within ${MAX_SKILL_FILES} files and ${MAX_SKILL_BYTES} bytes (SEP-2640).`);
  }
  const scopes = definition.scopes && [...definition.scopes];
  return { uri: files[0]!.uri, root, frontmatter: definition.frontmatter, files, ...(scopes ? { scopes } : {}) };
}

/** The directory tree above every file: each ancestor from `skill://<first segment>` down lists its children. */
function layOutDirectories(skills: CompiledSkill[]): Map<string, DirectoryChild[]> {
  const children = new Map<string, Map<string, DirectoryChild>>();
  const add = (parent: string, child: DirectoryChild) => {
    const siblings = children.get(parent) ?? new Map<string, DirectoryChild>();
    if (!siblings.has(child.uri)) siblings.set(child.uri, child);
    children.set(parent, siblings);
  };
  for (const skill of skills) {
    for (const file of skill.files) {
      const segments = file.uri.slice(SKILL_SCHEME.length).split('/');
      for (let depth = 1; depth < segments.length; depth += 1) {
        const parent = SKILL_SCHEME + segments.slice(0, depth).join('/');
        const name = segments[depth]!;
        const isFile = depth === segments.length - 1;
        add(parent, isFile ? fileChild(skill, file, name) : { uri: `${parent}/${name}`, name, mimeType: DIRECTORY_MIME_TYPE });
      }
    }
  }
  return new Map([...children].map(([uri, siblings]) => [uri, [...siblings.values()]]));
}

/** SKILL.md takes its resource name and description from the frontmatter (SEP-2640 §Resource Metadata). */
export function fileChild(skill: CompiledSkill, file: SkillFile, name: string): DirectoryChild {
  return file.uri === skill.uri
    ? { uri: file.uri, name: skill.frontmatter.name, mimeType: file.mimeType, description: skill.frontmatter.description }
    : { uri: file.uri, name, mimeType: file.mimeType };
}

/** Compiles definitions; a bad or colliding one throws a TypeError naming it. Skills do not nest here. */
export function compileSkills(definitions: SkillDefinition[]): SkillCatalog {
  const skills = definitions.map(compileSkill);
  const byUri = new Map<string, CompiledSkill>();
  for (const skill of skills) {
    if (byUri.has(skill.uri)) throw new TypeError(`Duplicate skill "${skill.uri}".`);
    const outer = skills.find((other) => other.uri !== skill.uri && skill.uri.startsWith(`${other.root}/`))?.root;
    // A nested skill's files would belong to the enclosing skill's resources too (SEP-2640 §Nested skills).
    if (outer) throw new TypeError(`Skill "${skill.uri}" lies inside the skill at ${outer}; skills do not nest here.`);
    byUri.set(skill.uri, skill);
  }
  return { skills, byUri, directories: layOutDirectories(skills) };
}
