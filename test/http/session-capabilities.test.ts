/**
 * A stateless legacy session id remembers which askable client capabilities the client declared at initialize,
 * under the session's MAC: nobody can edit it to claim more, and ids without capabilities keep their old form.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openSession, post } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => void (server = await startTestServer()));
afterAll(async () => server.close());

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

describe('session ids and declared capabilities', () => {
  test('a client that declared elicitation and sampling gets an id that says so, and it is accepted', async () => {
    const session = await openSession(server.mcpUrl, '2025-11-25', {}, { elicitation: {}, sampling: {}, experimental: { x: {} } });
    expect(session['mcp-session-id']!.split('.')).toHaveLength(3);
    expect(session['mcp-session-id']!.split('.')[2]).toBe('es');
    expect((await post(server.mcpUrl, list, session)).status).toBe(200);
  });

  test('an id edited to claim more capabilities gets 404', async () => {
    const session = await openSession(server.mcpUrl, '2025-11-25', {}, { elicitation: {} });
    const [nonce, mac] = session['mcp-session-id']!.split('.');
    const forged = { ...session, 'mcp-session-id': `${nonce}.${mac}.esr` };
    expect((await post(server.mcpUrl, list, forged)).status).toBe(404);
  });

  test('a client that declared nothing gets the two-part id earlier versions issued', async () => {
    const session = await openSession(server.mcpUrl);
    expect(session['mcp-session-id']!.split('.')).toHaveLength(2);
    expect((await post(server.mcpUrl, list, session)).status).toBe(200);
  });
});
