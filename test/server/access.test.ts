/**
 * One access rule for every kind of entry (docs/security.md "What scopes gate"): a tool, resource, resource
 * template, prompt or skill needs its own `scopes`, or the server's default (AUTH_SCOPES) when it names none, for
 * every operation on it. Lists hide what the caller may not use; calling, reading, getting and completing it is
 * 403 insufficient_scope, as tools/call always was. A caller without a principal (auth off) is not checked.
 */

import { describe, expect, test } from 'vitest';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import { INSUFFICIENT_SCOPE, INVALID_PARAMS } from '../../lib/protocol/errors.js';
import { DIRECTORY_READ, SKILLS_GET, SKILLS_LIST } from '../../lib/protocol/skills.js';
import type { Principal } from '../../lib/server/context.js';
import { createRegistry } from '../../lib/server/create-registry.js';
import type { RegistryDefinition } from '../../lib/server/registry.js';
import { MemoryStore } from '../../lib/store/memory.js';

const DEFAULT = 'mcp';
const ADMIN = 'admin';

/** Two entries of every kind: `open` names no scopes (so needs the default), `admin` names its own. */
function entries(): RegistryDefinition {
  const scoped = (variant: Variant) => (variant === 'admin' ? { scopes: [ADMIN] } : {});
  const variants = ['open', 'admin'] as const;
  return {
    tools: variants.map((v) => ({ name: `${v}_tool`, description: 'A tool.', ...scoped(v), run: () => ({ content: [{ type: 'text', text: v }] }) })),
    resources: variants.map((v) => ({ uri: `app://${v}`, name: `${v}-resource`, ...scoped(v), read: () => [{ uri: `app://${v}`, text: v }] })),
    resourceTemplates: variants.map((v) => ({
      uriTemplate: `app://${v}/{id}`,
      name: `${v}-template`,
      ...scoped(v),
      complete: { id: () => ['1', '2'] },
      read: (uri: string) => [{ uri, text: v }],
    })),
    prompts: variants.map((v) => ({
      name: `${v}_prompt`,
      description: 'A prompt.',
      arguments: [{ name: 'who' }],
      ...scoped(v),
      complete: { who: () => ['Ada'] },
      get: () => ({ messages: [{ role: 'user' as const, content: { type: 'text', text: v } }] }),
    })),
    skills: variants.map((v) => ({
      path: `team/${v}-skill`,
      frontmatter: { name: `${v}-skill`, description: `The ${v} skill.` },
      instructions: `# ${v}`,
      ...scoped(v),
    })),
  };
}

type Variant = 'open' | 'admin';
const echo = { id: 'echo', name: 'Echo', description: 'Says it back.', reply: async function* () { yield 'ok'; } };
const app = createApp({
  definitions: [entries(), agentDefinitions({}, [echo])],
  defaultScopes: [DEFAULT],
  origin: { local: true, allowedOrigins: new Set() },
});
const store = new MemoryStore();

async function ask(principal: Principal | undefined, method: string, params: Record<string, unknown>): Promise<any> {
  return app.dispatch(
    { jsonrpc: '2.0', id: 1, method, params },
    { era: 'legacy', protocolVersion: '2025-11-25', principal, clientCapabilities: {}, signal: new AbortController().signal, store },
  );
}

const skillMd = (v: Variant) => `skill://team/${v}-skill/SKILL.md`;

/** An operation that lists: what it names of `v` in its answer (undefined when `v` is not listed). */
interface Listing { kind: string; method: string; params: Record<string, unknown>; names(result: any): string[]; name(v: Variant): string }
/** An operation on one entry: its request for `v`. */
interface Use { kind: string; method: string; params(v: Variant): Record<string, unknown> }

const LISTINGS: Listing[] = [
  { kind: 'tool', method: 'tools/list', params: {}, names: (r) => r.tools.map((t: any) => t.name), name: (v) => `${v}_tool` },
  { kind: 'resource', method: 'resources/list', params: {}, names: (r) => r.resources.map((x: any) => x.uri), name: (v) => `app://${v}` },
  { kind: 'resource template', method: 'resources/templates/list', params: {}, names: (r) => r.resourceTemplates.map((t: any) => t.uriTemplate), name: (v) => `app://${v}/{id}` },
  { kind: 'prompt', method: 'prompts/list', params: {}, names: (r) => r.prompts.map((p: any) => p.name), name: (v) => `${v}_prompt` },
  { kind: 'skill', method: SKILLS_LIST, params: {}, names: (r) => r.skills.map((s: any) => s.uri), name: skillMd },
  { kind: 'skill file', method: 'resources/list', params: {}, names: (r) => r.resources.map((x: any) => x.uri), name: skillMd },
  { kind: 'skill directory', method: DIRECTORY_READ, params: { uri: 'skill://team' }, names: (r) => r.resources.map((x: any) => x.uri), name: (v) => `skill://team/${v}-skill` },
];

const USES: Use[] = [
  { kind: 'tool', method: 'tools/call', params: (v) => ({ name: `${v}_tool`, arguments: {} }) },
  { kind: 'resource', method: 'resources/read', params: (v) => ({ uri: `app://${v}` }) },
  { kind: 'resource template', method: 'resources/read', params: (v) => ({ uri: `app://${v}/1` }) },
  { kind: 'resource template', method: 'completion/complete', params: (v) => ({ ref: { type: 'ref/resource', uri: `app://${v}/{id}` }, argument: { name: 'id', value: '' } }) },
  { kind: 'prompt', method: 'prompts/get', params: (v) => ({ name: `${v}_prompt`, arguments: {} }) },
  { kind: 'prompt', method: 'completion/complete', params: (v) => ({ ref: { type: 'ref/prompt', name: `${v}_prompt` }, argument: { name: 'who', value: '' } }) },
  { kind: 'skill', method: SKILLS_GET, params: (v) => ({ uri: skillMd(v) }) },
  { kind: 'skill file', method: 'resources/read', params: (v) => ({ uri: skillMd(v) }) },
];

/** Who asks, and which of the two entries of each kind it may use. */
const HOLDERS: Array<[string, string[] | undefined, Record<Variant, boolean>]> = [
  ['no principal (auth off)', undefined, { open: true, admin: true }],
  ['the default scope', [DEFAULT], { open: true, admin: false }],
  ['only the entry\'s own scope', [ADMIN], { open: false, admin: true }],
  ['both', [DEFAULT, ADMIN], { open: true, admin: true }],
  ['no scope at all', [], { open: false, admin: false }],
];

describe.each(HOLDERS)('a caller holding %s', (_label, scopes, may) => {
  const principal = scopes && { subject: 'someone', scopes };

  test.each(LISTINGS)('$method lists a $kind only when the caller may use it', async ({ method, params, names, name }) => {
    const reply = await ask(principal, method, params);
    // A directory holding nothing the caller may use is no directory for it: -32602, as for an unknown one.
    const none = method === DIRECTORY_READ && !may.open && !may.admin;
    expect(reply.error?.code).toBe(none ? INVALID_PARAMS : undefined);
    const listed = none ? [] : names(reply.result);
    for (const v of ['open', 'admin'] as const) expect(listed.includes(name(v))).toBe(may[v]);
  });

  test.each(USES)('$method of a $kind answers, or is refused with 403 insufficient_scope naming the scopes', async ({ method, params }) => {
    for (const v of ['open', 'admin'] as const) {
      const reply = await ask(principal, method, params(v));
      if (may[v]) {
        expect(reply.error).toBeUndefined();
        expect(reply.result).toBeDefined();
      } else {
        expect(reply.error).toMatchObject({
          code: INSUFFICIENT_SCOPE,
          data: { requiredScopes: v === 'admin' ? [ADMIN] : [DEFAULT], grantedScopes: scopes },
        });
      }
    }
  });
});

describe('what is refused is refused before it runs, and unknown stays unknown', () => {
  test('a read the caller may not make runs no reader, and its message names the entry and the scopes', async () => {
    let reads = 0;
    const counted = createApp({
      definitions: [{ resources: [{ uri: 'app://secret', name: 'secret', scopes: [ADMIN], read: () => [{ uri: 'app://secret', text: String(++reads) }] }] }],
      origin: { local: true, allowedOrigins: new Set() },
    });
    const reply = await counted.dispatch(
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'app://secret' } },
      { era: 'legacy', protocolVersion: '2025-11-25', principal: { subject: 'x', scopes: [] }, clientCapabilities: {}, signal: new AbortController().signal, store },
    );
    expect(reply).toMatchObject({ error: { code: INSUFFICIENT_SCOPE, message: 'Insufficient scope: app://secret needs admin.' } });
    expect(reads).toBe(0);
  });

  test('scopes that are not a list of scope names stop start-up with a TypeError naming the entry', () => {
    const read = () => [];
    expect(() => createRegistry({ resources: [{ uri: 'app://x', name: 'x', scopes: 'admin' as never, read }] }))
      .toThrow(new TypeError('Resource "app://x": scopes must be an array of scope names (no spaces), or absent for the server\'s default.'));
    expect(() => createRegistry({ prompts: [{ name: 'p', description: 'P.', scopes: ['docs read'], get: () => ({ messages: [] }) }] }))
      .toThrow('Prompt "p": scopes must be an array of scope names');
  });

  test('an unknown name is the usual -32602, whoever asks', async () => {
    const reply = await ask({ subject: 'someone', scopes: [] }, 'prompts/get', { name: 'nope', arguments: {} });
    expect(reply.error).toMatchObject({ code: INVALID_PARAMS, message: 'Unknown prompt: nope.' });
  });

  test('a skill directory holding no skill the caller may use is not a directory for it', async () => {
    const reply = await ask({ subject: 'someone', scopes: [] }, DIRECTORY_READ, { uri: 'skill://team/admin-skill' });
    expect(reply.error).toMatchObject({ code: INVALID_PARAMS, data: { uri: 'skill://team/admin-skill' } });
  });
});

describe('an agent is reached through chat_with_agent, so its resource and skill need that tool\'s scopes', () => {
  test.each<[string, string[], boolean]>([
    ['the default scope', [DEFAULT], true],
    ['another scope', [ADMIN], false],
  ])('holding %s', async (_label, scopes, may) => {
    const principal = { subject: 'someone', scopes };
    const tools = (await ask(principal, 'tools/list', {})).result.tools.map((t: any) => t.name);
    const resources = (await ask(principal, 'resources/list', {})).result.resources.map((r: any) => r.uri);
    const skills = (await ask(principal, SKILLS_LIST, {})).result.skills.map((s: any) => s.uri);
    expect(tools.includes('chat_with_agent')).toBe(may);
    expect(resources.includes('agent://echo')).toBe(may);
    expect(skills.includes('skill://agents/echo/SKILL.md')).toBe(may);
    const read = await ask(principal, 'resources/read', { uri: 'agent://echo' });
    expect(read.error?.code).toBe(may ? undefined : INSUFFICIENT_SCOPE);
  });
});
