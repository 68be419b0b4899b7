/**
 * The official SDK v2 client as a Client ID Metadata Document client, over real TLS: its client id is the https URL
 * of its document (as Claude's, ChatGPT's and VS Code's are), which it uses instead of registering because the
 * built-in server's metadata advertises documents with `none`. The server, in its own process trusting the test
 * certificate (NODE_EXTRA_CA_CERTS), fetches the document over https, shows its host on the consent page, and signs
 * the person in.
 */

import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { Server } from 'node:https';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PROVIDER_CLIENT } from '../../support/authz-stack.js';
import { followToRedirect } from '../../support/browser-leg.js';
import { freePort } from '../../support/client-harness.js';
import { startInstances, type Instances } from '../../support/instances.js';
import { memoryProvider } from '../../support/oauth-clients.js';
import { startOAuthServer, type OAuthServer } from '../../support/oauth-server.js';
import { newSigningKey } from '../../support/signing-key.js';
import { startHttpsServer, TEST_CA } from '../../support/tls.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
let provider: OAuthServer;
let instance: Instances;
let documents: { origin: string; server: Server };
let fetched = 0;

beforeAll(async () => {
  const port = await freePort();
  documents = await startHttpsServer((req, res) => {
    fetched++;
    const id = `${documents.origin}${req.url}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      client_id: id, client_name: 'An SDK client', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none',
    }));
  });
  provider = await startOAuthServer({
    scopes: [], email: 'alice@example.com',
    clients: [{ client_id: PROVIDER_CLIENT.id, client_secret: PROVIDER_CLIENT.secret, redirect_uris: [`http://localhost:${port}/oauth/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
  });
  instance = await startInstances(1, {
    INSTANCE_APP: 'default', PORT: String(port), NODE_EXTRA_CA_CERTS: TEST_CA,
    AUTH_SERVER_KEY: newSigningKey(), AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: provider.issuer,
    AUTH_SERVER_CLIENT_ID: PROVIDER_CLIENT.id, AUTH_SERVER_CLIENT_SECRET: PROVIDER_CLIENT.secret, AUTH_SERVER_ALLOW: 'alice@example.com', AUTH_SCOPES: 'agents:chat',
  });
}, 60_000);
afterAll(async () => {
  await instance?.stop();
  await provider?.close();
  await new Promise((resolve) => documents?.server.close(resolve));
});

test('the SDK uses its document URL as client id, the server fetches it over https and signs the person in', async () => {
  const clientMetadataUrl = `${documents.origin}/oauth/client.json`;
  const oauth = memoryProvider({ redirect: REDIRECT, clientMetadataUrl });
  const url = new URL(instance.urls[0]!);
  const first = new StreamableHTTPClientTransport(url, { authProvider: oauth });
  await expect(new Client({ name: 'cimd', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(oauth.saved.client).toMatchObject({ client_id: clientMetadataUrl });
  expect(oauth.authorizationUrl!.searchParams.get('client_id')).toBe(clientMetadataUrl);
  const pages: string[] = [];
  const callback = await followToRedirect(oauth.authorizationUrl!, REDIRECT, { pages });
  expect(pages[0]).toContain(`metadata document at <strong>${new URL(documents.origin).host}</strong>`);
  await first.finishAuth(callback.searchParams.get('code')!, callback.searchParams.get('iss') ?? undefined);
  expect(oauth.saved.tokens!.refresh_token).toMatch(/^amcp_rt_/);
  const client = new Client({ name: 'cimd', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: oauth }));
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('chat_with_agent');
  await client.close();
  expect(fetched).toBe(1);
}, 60_000);
