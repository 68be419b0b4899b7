/**
 * The skills extension's methods (SEP-2640): `skills/list` and `skills/get` over the server's own skills, and
 * `resources/directory/read` over their directories. A URI that names no skill, or no directory, is -32602
 * with `data.uri` on both wires, the code `resources/read` uses for an unknown resource.
 * A skill is an entry like any other (lib/server/access.ts): lists and directories leave out the skills the caller
 * may not use, and `skills/get` of one is 403 insufficient_scope.
 */

import { INVALID_PARAMS, McpError } from '../protocol/errors.js';
import { DIRECTORY_READ, SKILLS_GET, SKILLS_LIST } from '../protocol/skills.js';
import { entryOf } from './entry.js';
import type { CompiledSkill, DirectoryChild, SkillCatalog } from './skill.js';
import { mayUse, requireAccess } from '../server/access.js';
import type { RequestContext } from '../server/context.js';
import { paginate } from '../server/pagination.js';
import type { Handler, MethodTable, Server } from '../server/server.js';
import { cacheHints } from '../server/methods/lifecycle.js';

function requireUri(params: Record<string, unknown>): string {
  if (typeof params.uri !== 'string') throw new McpError(INVALID_PARAMS, 'params.uri must be a string.');
  return params.uri;
}

/** Entries are atomic: a page holds whole skills, each with its complete `resources` set. */
async function listSkills(server: Server, catalog: SkillCatalog, params: Record<string, unknown>, ctx: RequestContext) {
  const skills = catalog.skills.filter((skill) => mayUse(server, skill, ctx));
  const { page, nextCursor } = paginate(skills, params.cursor, server.pageSize);
  return { skills: await Promise.all(page.map(entryOf)), ...(nextCursor ? { nextCursor } : {}), ...cacheHints(server.listTtlMs, ctx) };
}

/** One skill's entry by its SKILL.md URI; no cursor, since a single entry is not a list. */
async function getSkill(server: Server, catalog: SkillCatalog, params: Record<string, unknown>, ctx: RequestContext) {
  const uri = requireUri(params);
  const skill = catalog.byUri.get(uri);
  if (!skill) throw new McpError(INVALID_PARAMS, `Not a skill this server serves: ${uri}`, { uri });
  requireAccess(server, skill, uri, ctx);
  return { skill: await entryOf(skill), ...cacheHints(server.readTtlMs, ctx) };
}

/**
 * The direct children of a directory resource, paginated as resources/list is. A directory lists as a list does:
 * only what lies in skills the caller may use, and one holding none of them is no directory for that caller.
 */
function readDirectory(server: Server, { skills, directories }: SkillCatalog, params: Record<string, unknown>, ctx: RequestContext) {
  const uri = requireUri(params);
  const usable = skills.filter((skill) => mayUse(server, skill, ctx));
  const visible = (child: DirectoryChild) => usable.some((skill) => holds(skill, child.uri));
  const children = usable.length === skills.length ? directories.get(uri) : directories.get(uri)?.filter(visible);
  if (!children?.length) throw new McpError(INVALID_PARAMS, `Not a directory resource: ${uri}`, { uri });
  const { page, nextCursor } = paginate(children, params.cursor, server.pageSize);
  return { resources: page, ...(nextCursor ? { nextCursor } : {}), ...cacheHints(server.listTtlMs, ctx) };
}

/** True when `uri` is in `skill` (its root, a directory or file in it) or above it (a directory holding it). */
function holds(skill: CompiledSkill, uri: string): boolean {
  return skill.root === uri || skill.root.startsWith(`${uri}/`) || uri.startsWith(`${skill.root}/`);
}

type SkillMethod = (server: Server, catalog: SkillCatalog, params: Record<string, unknown>, ctx: RequestContext) => unknown;

/** The skills extension's methods by name, over `catalog` (an empty one answers them emptily). */
export function skillMethods(catalog: SkillCatalog): MethodTable {
  const bind = (method: SkillMethod): Handler => (server, params, ctx) => method(server, catalog, params, ctx);
  return { [SKILLS_LIST]: bind(listSkills), [SKILLS_GET]: bind(getSkill), [DIRECTORY_READ]: bind(readDirectory) };
}
