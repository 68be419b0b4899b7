/**
 * What a deployment adds to agent-mcp in code: its own tools, resources, resource templates, prompts,
 * in-process agents and skills, listed in tools/index.ts (docs/tools.md), each made with one typed helper.
 * Only types come from zod here: zod loads with the tools that use it.
 */

import type { InProcessAgentDefinition } from '../agent/config.js';
import type { SkillDefinition } from '../skills/skill.js';
import type { UserPrompt } from './prompt.js';
import type { UserResource, UserResourceTemplate } from './resource.js';
import type { UserTool } from './tool.js';

export { defineTool, type ToolContext, type ToolSpec, type ToolReturn, type ToolAnnotations, type UserTool } from './tool.js';
export {
  defineResource, defineResourceTemplate, type ResourceSpec, type ResourceTemplateSpec, type ReadReturn, type UserResource, type UserResourceTemplate,
} from './resource.js';
export { definePrompt, type PromptSpec, type UserPrompt } from './prompt.js';
export { ToolError } from './errors.js';
export type { Elicited } from './elicit.js';
export type { HandlerContext } from './context.js';
export type { InProcessAgentDefinition } from '../agent/config.js';
export type { SkillDefinition } from '../skills/skill.js';

/** Everything a deployment adds; names must not collide with agent-mcp's own or a mount's (checked at start-up). */
export interface Additions {
  tools?: UserTool[];
  resources?: UserResource[];
  resourceTemplates?: UserResourceTemplate[];
  prompts?: UserPrompt[];
  agents?: InProcessAgentDefinition[];
  /** Skills of its own, listed before the agents' (docs/skills.md). */
  skills?: SkillDefinition[];
}
