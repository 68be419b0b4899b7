/**
 * The discovery documents of the built deployment (run `npm run build` first; `npm test` does), reached through the
 * routes `vercel build` compiled from vercel.json, as Vercel's router reaches them: the AI Catalog at
 * /.well-known/ai-catalog.json lists the server card, whose URL routes to the card; mcp.json and its aliases stay.
 */

import { describe, expect, test } from 'vitest';
import { fetchBuilt, route } from '../support/vercel-router.js';

const ORIGIN = 'http://localhost';

describe('the built routes of the discovery documents', () => {
  test('/.well-known/ai-catalog.json reaches api/wk-mcp and is an AI Catalog naming the server card', async () => {
    expect(route(`${ORIGIN}/.well-known/ai-catalog.json`)).toEqual({
      kind: 'function', name: 'api/wk-mcp', url: `${ORIGIN}/.well-known/ai-catalog.json?doc=catalog`,
    });
    const response = await fetchBuilt(`${ORIGIN}/.well-known/ai-catalog.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/ai-catalog+json');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({
      specVersion: '1.0',
      host: { displayName: 'agent-mcp', identifier: 'localhost', documentationUrl: `${ORIGIN}/` },
      entries: [{ identifier: 'urn:air:localhost:mcp:agent-mcp', type: 'application/mcp-server-card+json', url: `${ORIGIN}/mcp/server-card` }],
    });
  });

  test('the entry\'s URL routes to the server card, served with its media type', async () => {
    const { entries: [entry] } = await (await fetchBuilt(`${ORIGIN}/.well-known/ai-catalog.json`)).json();
    const card = await fetchBuilt(entry.url, { headers: { accept: entry.type } });
    expect(card.status).toBe(200);
    expect(card.headers.get('content-type')).toBe(entry.type);
    expect((await card.json()).remotes).toEqual([expect.objectContaining({ type: 'streamable-http', url: `${ORIGIN}/mcp` })]);
  });

  test.each(['/.well-known/mcp.json', '/mcp.json'])('%s is still the seed tutorial\'s document', async (path) => {
    const response = await fetchBuilt(`${ORIGIN}${path}`);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ url: `${ORIGIN}/mcp`, server: { url: `${ORIGIN}/mcp` }, serverCard: `${ORIGIN}/mcp/server-card` });
  });
});
