/**
 * The skills extension (SEP-2640, docs/skills.md) as lib/app.ts installs it on the MCP core: the skills the
 * definitions name, compiled once; their files, served as resources; the extension's methods; and the extension
 * declared on both wires when there are skills to serve.
 */

import { SKILLS_EXTENSION } from '../protocol/skills.js';
import { checkScopeLists } from '../server/create-registry.js';
import type { RegistryDefinition, ResourceDefinition } from '../server/registry.js';
import type { Feature } from '../server/server.js';
import { skillMethods } from './methods.js';
import { compileSkills, fileChild, type SkillCatalog, type SkillDefinition } from './skill.js';

declare module '../server/registry.js' {
  interface RegistryDefinition {
    /** Skills (SEP-2640); their files are served as resources too. */
    skills?: SkillDefinition[];
  }
}

/**
 * The skills of `definitions`, as a feature and as the definition of their files, which createRegistry takes with the
 * others: a skill's skill:// URIs must not collide with anything else served. A bad skill is a TypeError naming it.
 */
export function servedSkills(definitions: readonly RegistryDefinition[]): { feature: Feature; files: RegistryDefinition } {
  const skills = definitions.flatMap((d) => d.skills ?? []);
  checkScopeLists(skills.map((k): [string, unknown] => [`Skill "${k.path}"`, k.scopes]));
  const catalog = compileSkills(skills);
  return { feature: skillsFeature(catalog), files: { origin: 'the skills', resources: skillResources(catalog) } };
}

function skillsFeature(catalog: SkillCatalog): Feature {
  return {
    methods: skillMethods(catalog),
    // Settings inline per SEP-2133; declaring it commits to skills/list and skills/get, and directoryRead to
    // resources/directory/read on every directory of the skills (SEP-2640 §Capability Declaration).
    declare: () => {
      if (catalog.skills.length === 0) return undefined;
      const extensions = { [SKILLS_EXTENSION]: { directoryRead: true } };
      return { legacy: { extensions }, modern: { extensions } };
    },
  };
}

/** Every skill file as a resource, readable by `resources/read` whatever the client knows of skills. */
function skillResources(catalog: SkillCatalog): ResourceDefinition[] {
  return catalog.skills.flatMap((skill) => skill.files.map((file) => {
    const { uri, mimeType, text } = file;
    const listed = fileChild(skill, file, uri.slice(skill.root.length + 1));
    return { ...listed, scopes: skill.scopes, read: () => [{ uri, mimeType, text }] };
  }));
}
