/**
 * The README's code is code: its TypeScript blocks typecheck with the project's compiler settings and run, and
 * its JSON agent configuration is accepted at start-up. A block that drifts from the API fails here.
 */

import { Client } from '@modelcontextprotocol/client';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, test } from 'vitest';
import { createDefaultApp } from '../../lib/app.js';
import type { UserTool } from '../../lib/define/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(`${ROOT}README.md`, 'utf8');

/** The fenced blocks of `lang` that follow the heading `section`, up to the next heading of its level. */
function blocksIn(section: string, lang: string): string[] {
  const start = README.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`README.md has no section "${section}"`);
  const end = README.indexOf('\n## ', start + 1);
  const text = README.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1]!);
}

/** Type errors of `file` (and what it imports) under tsconfig.json's options. */
function typeErrors(file: string): string[] {
  const config = ts.readConfigFile(`${ROOT}tsconfig.json`, (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram([file], options);
  return ts.getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('README "Add your own tool"', () => {
  // The block says where it goes (its first line names the file); it is written there, as a reader would.
  const [block] = blocksIn('Add your own tool', 'ts');
  const target = /^\/\/ (tools\/[\w-]+\.ts)/.exec(block ?? '')?.[1];
  const path = target && `${ROOT}${target.replace(/\.ts$/, '.readme-check.ts')}`;
  afterAll(() => { if (path) rmSync(path, { force: true }); });

  test('has one TypeScript block that names the file it goes in, under tools/', () => {
    expect(block).toBeDefined();
    expect(target).toMatch(/^tools\//);
  });

  test('the block typechecks with the project\'s compiler settings, and a deployment that lists it serves the tool', { timeout: 60_000 }, async () => {
    writeFileSync(path!, block!);
    expect(typeErrors(path!)).toEqual([]);
    const module = (await import(path!)) as Record<string, UserTool>;
    const [tool] = Object.values(module);
    const client = new Client({ name: 'readme-check', version: '1.0.0' });
    await client.connect(createDefaultApp({}, { tools: [tool!] }).connectInProcess({ subject: 'reader', scopes: [] }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain(tool!.name);
      const result = await client.callTool({ name: tool!.name, arguments: { name: 'Ada' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
    } finally {
      await client.close();
    }
  });
});

describe('README "Give your agent tools"', () => {
  test('its AGENTS value is accepted at start-up, and each agent is offered to callers', async () => {
    const [block] = blocksIn('Give your agent tools', 'json');
    const app = createDefaultApp({ AGENTS: block!, OPENAI_API_KEY: 'sk-readme' });
    const client = new Client({ name: 'readme-check', version: '1.0.0' });
    await client.connect(app.connectInProcess({ subject: 'reader', scopes: [] }));
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri).filter((uri) => uri.startsWith('agent://')).sort()).toEqual(['agent://research', 'agent://writer']);
    } finally {
      await client.close();
    }
  });
});
