/**
 * vercel.json and package.json say what a deployment needs: Fluid compute wherever a function may run longer than
 * Hobby allows without it (60 s), and a Node range with an upper bound, so Vercel does not move the functions to
 * a new Node major on its own (the build output's runtime is checked in test/artifact/runtime.test.ts).
 */

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
const HOBBY_MAX_WITHOUT_FLUID_S = 60;

describe('the deployment configuration', () => {
  test('a function allowed more than 60 s comes with "fluid": true', () => {
    const config = read('vercel.json') as { fluid?: boolean; functions?: Record<string, { maxDuration?: number }> };
    const longest = Math.max(...Object.values(config.functions ?? {}).map((f) => f.maxDuration ?? 0));
    expect(longest).toBeGreaterThan(HOBBY_MAX_WITHOUT_FLUID_S);
    expect(config.fluid).toBe(true);
  });

  test('engines.node admits the local Node majors and stops below the next one', () => {
    const range: string = read('package.json').engines.node;
    expect(range).toMatch(/^>=20\.\d+ <\d+$/);
    const ceiling = Number(/<(\d+)$/.exec(range)![1]);
    expect(Number(process.versions.node.split('.')[0])).toBeLessThan(ceiling);
  });
});
