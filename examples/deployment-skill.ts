/**
 * A skill of the deployment's own (docs/skills.md): served at skill://acme/house-style/SKILL.md next to the
 * skill each agent gets, listed first. To serve it, build the app this way in api/mcp.ts's default export:
 *
 *   fetch: createConfiguredHandler(() => createMcpHandler(createAppWithHouseStyle())),
 */

import { createDefaultApp, type App } from '../lib/app.js';
import type { SkillDefinition } from '../lib/skills/skill.js';

export const houseStyle: SkillDefinition = {
  path: 'acme/house-style',
  frontmatter: {
    name: 'house-style',
    description: 'Write replies and documents in Acme\'s house style. Use before drafting anything a customer reads.',
    license: 'Apache-2.0',
  },
  instructions: [
    '# House style',
    '',
    'Short sentences, plain words, no exclamation marks.',
    'Pick the closing that fits from `closings/` (list it with resources/directory/read).',
  ].join('\n'),
  files: {
    'closings/formal.md': 'Kind regards,\nThe Acme team\n',
    'closings/friendly.md': 'Thanks, and talk soon,\nThe Acme team\n',
  },
};

/** The deployment's app with the house-style skill added; `env` is read as createDefaultApp reads it. */
export function createAppWithHouseStyle(env: Record<string, string | undefined> = process.env): App {
  return createDefaultApp(env, { skills: [houseStyle] });
}
