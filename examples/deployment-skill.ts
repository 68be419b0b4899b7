/**
 * A skill of the deployment's own (docs/skills.md): served at skill://acme/house-style/SKILL.md next to the
 * skill each agent gets, listed first. To serve it, list it in tools/index.ts, as examples/tools/index.ts does:
 *
 *   skills: [houseStyle],
 */

import type { SkillDefinition } from '../lib/define/index.js';

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

