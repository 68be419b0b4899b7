/**
 * Each agent as a skill (SEP-2640) at `skill://agents/<name>/SKILL.md`: what the agent is, and how to reach it
 * through `chat_with_agent`. A host that loads skills learns about the agent the way it learns any skill, by
 * name and description, and reads the instructions only when the model needs them.
 */

import { charClass } from '../chars.js';
import type { SkillDefinition } from '../skills/skill.js';
import type { Agent, AgentProfile } from './types.js';

/** The skill-path prefix of agent skills; a deployment's own skills sit beside it. */
export const AGENT_SKILLS_PREFIX = 'agents';
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;

const SLUG_CHARS = charClass('a-z0-9');

/** `name` without its trailing hyphen: a slug has at most one, since a run of other characters becomes one hyphen. */
const trimmed = (name: string) => (name.endsWith('-') ? name.slice(0, -1) : name);

/** A skill name from an agent id (ids allow capitals, `_` and `.`; skill names do not): other runs become `-`. */
function slugOf(id: string): string {
  const lower = id.toLowerCase();
  let slug = '';
  for (let i = 0; i < lower.length; i++) {
    if (SLUG_CHARS.has(lower.charCodeAt(i))) slug += lower[i];
    else if (slug !== '' && !slug.endsWith('-')) slug += '-';
  }
  return trimmed(slug.slice(0, MAX_NAME)) || 'agent';
}

/** Distinct skill names for the agents, in their order; a collision gets `-2`, `-3`… */
function namesOf(agents: Agent[]): string[] {
  const taken = new Set<string>();
  return agents.map(({ profile }) => {
    const base = slugOf(profile.id);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${trimmed(base.slice(0, MAX_NAME - String(n).length - 1))}-${n}`;
    taken.add(name);
    return name;
  });
}

function instructionsFor(profile: AgentProfile): string {
  const call = JSON.stringify({ agent_id: profile.id, message: '<what you want, in plain language>' });
  return [
    `# ${profile.name}`,
    '',
    profile.description,
    '',
    `This agent is reached through this MCP server's \`chat_with_agent\` tool, with \`agent_id\` set to \`${profile.id}\`.`,
    '',
    '## How to talk to it',
    '',
    `1. Call \`chat_with_agent\` with \`${call}\`.`,
    '2. The result holds the agent\'s `reply` and a `session_id`. To continue the same conversation, call again with that `session_id` and the same `agent_id`; leave it out to start afresh.',
    '3. Ask for progress (a progress token) to receive the reply as it streams. A failure comes back as a tool result with `isError: true` whose text says what went wrong; it is safe to retry.',
    '4. A reply the agent is still writing when the server\'s reply deadline comes has `pending: true` and the text so far; the agent goes on. Call again with the same `session_id` and no `message` to get the rest, or with `"cancel": true` to stop it.',
    ...(profile.paid ? ['', 'Each call is paid with x402 (an x402 MCP client pays it): a call without payment comes back asking for one.'] : []),
    '',
    `The agent's profile is also the resource \`agent://${profile.id}\`.`,
  ].join('\n');
}

/** One skill per agent, named after its id; `scopes` as for the agent's resource (lib/agent/resources.ts). */
export function agentSkills(agents: Agent[], scopes?: string[]): SkillDefinition[] {
  const names = namesOf(agents);
  return agents.map(({ profile }, i) => {
    const name = names[i]!;
    const description = `Delegate a task or question to ${profile.name} (agent_id "${profile.id}") with the chat_with_agent tool. ${profile.description}`;
    return {
      path: `${AGENT_SKILLS_PREFIX}/${name}`,
      frontmatter: {
        name,
        description: description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description,
        metadata: { agent_id: profile.id },
      },
      instructions: instructionsFor(profile),
      ...(scopes ? { scopes } : {}),
    };
  });
}
