/**
 * The documents' code is code: the README's TypeScript blocks typecheck with the project's compiler settings and
 * run, and docs/agents.md's JSON agent configuration is accepted at start-up. A block that drifts from the API
 * fails here.
 */

import { Client } from '@modelcontextprotocol/client';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, test } from 'vitest';
import { createDefaultApp } from '../../lib/app.js';
import type { Additions } from '../../lib/define/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(`${ROOT}README.md`, 'utf8');

/** The fenced blocks of `lang` that follow the heading `section` of `document`, up to the next heading of its level. */
function blocksIn(section: string, lang: string, document = README): string[] {
  const start = document.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`the document has no section "${section}"`);
  const end = document.indexOf('\n## ', start + 1);
  const text = document.slice(start, end < 0 ? undefined : end);
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
  // Two blocks, each naming its file on its first line: the tool's own file, and the lines tools/index.ts gains. Both
  // are written as a reader would (under names the check removes after), and the deployment they make serves the tool.
  const [tool, index] = blocksIn('Add your own tool', 'ts');
  const toolFile = /^\/\/ (tools\/[\w-]+)\.ts\n/.exec(tool ?? '')?.[1];
  const paths = { tool: `${ROOT}${toolFile}.readme-check.ts`, index: `${ROOT}tools/index.readme-check.ts` };
  afterAll(() => { for (const path of Object.values(paths)) rmSync(path, { force: true }); });

  /** tools/index.ts with the block's imports added after its own and its `tools:` line in place of the empty list. */
  function applyToIndex(block: string): string {
    const lines = block.split('\n').filter((line) => line.trim() && !line.startsWith('//'));
    const imports = lines.filter((line) => line.startsWith('import '))
      .map((line) => line.replace(`'./${toolFile!.slice('tools/'.length)}.js'`, `'./${toolFile!.slice('tools/'.length)}.readme-check.js'`));
    const listed = lines.find((line) => /^\s*tools: \[/.test(line));
    const original = readFileSync(`${ROOT}tools/index.ts`, 'utf8');
    expect(original).toContain('  tools: [],');
    return original.replace(/^(import .*\n)(?!import )/m, `$1${imports.join('\n')}\n`).replace('  tools: [],', listed!);
  }

  test('has the tool\'s file, under tools/, with its imports, and the lines tools/index.ts gains: an import and the list entry', () => {
    expect(toolFile).toMatch(/^tools\//);
    expect(tool).toMatch(/^import \* as z from 'zod';$/m);
    expect(index).toMatch(/^\/\/ tools\/index\.ts/);
    expect(index).toMatch(new RegExp(`^import \\{ greet \\} from './${toolFile!.slice('tools/'.length)}.js';$`, 'm'));
    expect(index).toMatch(/^\s*tools: \[greet\],$/m);
  });

  test('both typecheck with the project\'s compiler settings, and the deployment tools/index.ts then makes serves the tool', { timeout: 60_000 }, async () => {
    writeFileSync(paths.tool, tool!);
    writeFileSync(paths.index, applyToIndex(index!));
    expect(typeErrors(paths.index)).toEqual([]);
    const additions = ((await import(paths.index)) as { default: Additions }).default;
    const client = new Client({ name: 'readme-check', version: '1.0.0' });
    await client.connect(createDefaultApp({}, additions).connectInProcess({ subject: 'reader', scopes: [] }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('greet');
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
    } finally {
      await client.close();
    }
  });
});

describe('docs/agents.md "Give your agent tools"', () => {
  test('its AGENTS value is accepted at start-up, and each agent is offered to callers', async () => {
    const [block] = blocksIn('Give your agent tools', 'json', readFileSync(`${ROOT}docs/agents.md`, 'utf8'));
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
