/**
 * `npm run test:quick` (vitest.quick.config.ts) runs the test files that start no other program: a file is left out
 * when it, or a module of the project it imports, can (node:child_process, playwright-core), and kept otherwise.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import quick from '../../vitest.quick.config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const excluded = quick.test?.exclude ?? [];

describe('npm run test:quick', () => {
  test('is the script package.json names', () => {
    expect(JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).scripts['test:quick']).toBe('vitest run --config vitest.quick.config.ts');
  });

  test('leaves out a file that starts a program itself, and one whose support module does', () => {
    expect(excluded).toContain('test/config/test-output.test.ts'); // node:child_process, in the file
    expect(excluded).toContain('test/agent/reply-deadline.test.ts'); // the scripted upstream, test/support/upstream.ts
    expect(excluded).toContain('test/landing/landing.test.ts'); // the browser, through playwright-core
    expect(excluded).toContain('test/clients/inspector-cli.test.ts');
  });

  test('keeps a file that runs in the test process alone, and the suite\'s own exclusions', () => {
    expect(excluded).not.toContain('test/protocol/classify.test.ts');
    expect(excluded).not.toContain('test/http/endpoint.test.ts');
    expect(excluded).toEqual(expect.arrayContaining(['test/artifact/**', 'node_modules/**']));
  });
});
