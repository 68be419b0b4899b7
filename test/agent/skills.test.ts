/** Each agent as a skill, and a deployment's own skills beside them (lib/agent/skills.ts, lib/app.ts). */

import { describe, expect, test } from 'vitest';
import { agentSkills } from '../../lib/agent/skills.js';
import { readAgents } from '../../lib/agent/config.js';
import { createApp, defaultDefinitions } from '../../lib/app.js';
import { SKILLS_LIST } from '../../lib/protocol/skills.js';
import { compileSkills } from '../../lib/skills/skill.js';
import * as z from 'zod';
import { createV2Client } from '../support/sdk.js';

const reply = async function* () { yield 'ok'; };
const agent = (id: string, description = 'Helps.') => ({ id, name: `Agent ${id}`, description, reply });

describe('agent skills', () => {
  test('every agent gets a skill at skill://agents/<name> that says how to call chat_with_agent with its agent_id', () => {
    const agents = readAgents({ AGENTS: JSON.stringify([{ id: 'support', name: 'Support desk', description: 'Answers support tickets.', format: 'platform', url: 'https://agents.example/chat' }]) }, [agent('shout')]);
    const catalog = compileSkills(agentSkills(agents));
    expect(catalog.skills.map((s) => s.uri)).toEqual(['skill://agents/support/SKILL.md', 'skill://agents/shout/SKILL.md']);
    const [support] = catalog.skills;
    expect(support!.frontmatter).toEqual({
      name: 'support',
      description: 'Delegate a task or question to Support desk (agent_id "support") with the chat_with_agent tool. Answers support tickets.',
      metadata: { agent_id: 'support' },
    });
    const text = support!.files[0]!.text;
    expect(text).toContain('`chat_with_agent` with `{"agent_id":"support","message":"<what you want, in plain language>"}`');
    expect(text).toContain('`session_id`');
    expect(text).toContain('agent://support');
  });

  test('agent ids that are not skill names become distinct skill names', () => {
    const agents = readAgents({}, [agent('Shout.Bot'), agent('shout_bot'), agent('__'), agent('x'.repeat(64)), agent('X'.repeat(64))]);
    const names = agentSkills(agents).map((s) => s.frontmatter.name);
    expect(names).toEqual(['shout-bot', 'shout-bot-2', 'agent', 'x'.repeat(64), `${'x'.repeat(62)}-2`]);
    expect(() => compileSkills(agentSkills(agents))).not.toThrow();
  });

  test('a paid agent\'s skill says calls are paid with x402', () => {
    const [paid] = agentSkills(readAgents({ X402_PAY_TO: '0x0000000000000000000000000000000000000001' }, [agent('shout')]));
    expect(paid!.instructions).toContain('x402');
  });

  test('a long description is cut to the 1024 characters the Agent Skills specification allows', () => {
    const [long] = agentSkills(readAgents({}, [agent('long', 'y'.repeat(2000))]));
    expect(long!.frontmatter.description).toHaveLength(1024);
  });
});

test('a deployment\'s own skills list before the agents\' skills', async () => {
  const own = { path: 'house-style', frontmatter: { name: 'house-style', description: 'How we write.' }, instructions: 'Be brief.' };
  const app = createApp({ definitions: defaultDefinitions({}, { skills: [own] }), origin: { local: true, allowedOrigins: new Set() } });
  const client = createV2Client('modern');
  await client.connect(app.connectInProcess());
  try {
    const listed: any = await client.request({ method: SKILLS_LIST, params: {} } as never, z.looseObject({}));
    expect(listed.skills.map((s: any) => s.uri)).toEqual(['skill://house-style/SKILL.md', 'skill://agents/demo/SKILL.md']);
  } finally {
    await client.close();
  }
});
