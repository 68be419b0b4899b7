/**
 * The usage page of the built deployment (run `npm run build` first; `npm test` does), reached through the routes
 * `vercel build` compiled from vercel.json: /usage and /usage.json reach api/usage, a function of its own, and a
 * deployment with no sign-in mode answers 404 with nothing of the view.
 */

import { expect, test } from 'vitest';
import { fetchBuilt, route } from '../support/vercel-router.js';

const ORIGIN = 'http://localhost';

test('/usage and /usage.json reach api/usage; the JSON route says so in ?view=json', () => {
  expect(route(`${ORIGIN}/usage`)).toEqual({ kind: 'function', name: 'api/usage', url: `${ORIGIN}/usage` });
  const json = route(`${ORIGIN}/usage.json?window=hour`);
  expect(json).toMatchObject({ kind: 'function', name: 'api/usage' });
  const url = new URL((json as { url: string }).url);
  expect([url.searchParams.get('view'), url.searchParams.get('window')]).toEqual(['json', 'hour']);
});

test.each(['/usage', '/usage.json'])('%s of a deployment with no sign-in mode: 404, no number', async (path) => {
  const response = await fetchBuilt(`${ORIGIN}${path}`);
  expect(response.status).toBe(404);
  expect(await response.text()).not.toMatch(/totals|Totals/);
});
