/** The runtime `vercel build` chose from package.json's engines (run `npm run build` first; `npm test` does). */

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const FUNCTIONS = new URL('../../.vercel/output/functions/api/', import.meta.url);

describe('the built functions', () => {
  test('every function runs on Node 24, the major engines pins', () => {
    const runtimes = readdirSync(FUNCTIONS).filter((d) => d.endsWith('.func'))
      .map((dir) => JSON.parse(readFileSync(new URL(`${dir}/.vc-config.json`, FUNCTIONS), 'utf8')).runtime);
    expect(runtimes.length).toBeGreaterThan(0);
    expect(new Set(runtimes)).toEqual(new Set(['nodejs24.x']));
  });
});
