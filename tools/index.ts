/**
 * What this deployment adds to agent-mcp: its own tools, resources, resource templates, prompts,
 * in-process agents (docs/tools.md) and skills (docs/skills.md). Add a file in this folder and two lines here (its
 * import and its entry in a list); createDefaultApp serves it, next to chat_with_agent and the mounted servers, with
 * the same auth, scopes, rate limits and x402.
 * An empty list costs nothing at start-up. examples/tools/ shows a filled one (a notes tool set).
 *
 *   import { notesTools, notesResources } from './notes.js';
 *   tools: [...notesTools],
 */

import type { Additions } from '../lib/define/index.js';

const additions: Additions = {
  tools: [],
  resources: [],
  resourceTemplates: [],
  prompts: [],
  agents: [],
  skills: [],
};

export default additions;
