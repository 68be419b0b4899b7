/**
 * The skills extension (SEP-2640, docs/skills.md) as lib/app.ts installs it on the MCP core: its methods, and the
 * extension declared on both wires when the server serves skills.
 */

import { SKILLS_EXTENSION } from '../protocol/skills.js';
import type { Feature } from '../server/server.js';
import { SKILL_METHODS } from './methods.js';

export function skillsFeature(): Feature {
  return {
    methods: SKILL_METHODS,
    // Settings inline per SEP-2133; declaring it commits to skills/list and skills/get, and directoryRead to
    // resources/directory/read on every directory of the skills (SEP-2640 §Capability Declaration).
    declare: ({ registry }) => {
      if (!registry.skills) return undefined;
      const extensions = { [SKILLS_EXTENSION]: { directoryRead: true } };
      return { legacy: { extensions }, modern: { extensions } };
    },
  };
}
