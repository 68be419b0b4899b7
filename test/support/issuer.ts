/**
 * Test support: a real token issuer on loopback (RFC 8414 or OpenID metadata and a JWKS over HTTP, real keys
 * from jose) that can rotate its key, go down, and count what it served; and helpers to mint access tokens
 * for it, good and bad.
 */

import { createServer } from 'node:http';
import * as jose from 'jose';

export interface IssuerOptions {
  /** Which metadata document the issuer serves (RFC 8414, OpenID Discovery, or none). */
  metadata?: 'oauth' | 'openid' | 'none';
  /** A path in the issuer identifier, e.g. `/tenant-a` (RFC 8414 §3.1 path insertion). */
  path?: string;
  /** The `issuer` its metadata claims, when it should differ from the real one. */
  claimedIssuer?: string;
}

export interface TestIssuer {
  issuer: string;
  jwksUrl: string;
  /** Signs with the current published key unless told otherwise. */
  mint(claims: jose.JWTPayload, options?: { key?: jose.CryptoKey; kid?: string; alg?: string }): Promise<string>;
  publicJwk: jose.JWK;
  /** A key whose public half is not published. */
  strangerKey: jose.CryptoKey;
  /** Publishes a new key (and only it) under a new kid; later mints use it. */
  rotate(): Promise<string>;
  /** While down, every request gets 503. */
  setDown(down: boolean): void;
  /** Requests received (even while down): all of them, and those for the metadata and the JWKS. */
  served: { requests: number; metadata: number; jwks: number };
  close(): Promise<void>;
}

async function newKey(kid: string) {
  const { publicKey, privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await jose.exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } as jose.JWK };
}

export async function startIssuer(options: IssuerOptions = {}): Promise<TestIssuer> {
  let current = await newKey('k1');
  const stranger = await jose.generateKeyPair('RS256');
  const path = options.path ?? '';
  const kind = options.metadata ?? 'oauth';
  let origin = '';
  let down = false;
  const served = { requests: 0, metadata: 0, jwks: 0 };
  const metadataPath = kind === 'oauth' ? `/.well-known/oauth-authorization-server${path}` : `${path}/.well-known/openid-configuration`;

  const server = createServer((req, res) => {
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const isMetadata = kind !== 'none' && req.url === metadataPath;
    served.requests++;
    if (isMetadata) served.metadata++;
    if (req.url === '/jwks') served.jwks++;
    if (down) return res.writeHead(503).end();
    if (isMetadata) return send({ issuer: options.claimedIssuer ?? `${origin}${path}`, jwks_uri: `${origin}/jwks` });
    if (req.url === '/jwks') return send({ keys: [current.publicJwk] });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  return {
    issuer: `${origin}${path}`,
    jwksUrl: `${origin}/jwks`,
    get publicJwk() { return current.publicJwk; },
    strangerKey: stranger.privateKey,
    served,
    async mint(claims, mintOptions = {}) {
      return new jose.SignJWT(claims)
        .setProtectedHeader({ alg: mintOptions.alg ?? 'RS256', kid: mintOptions.kid ?? current.kid, typ: 'at+jwt' })
        .sign(mintOptions.key ?? current.privateKey);
    },
    async rotate() {
      current = await newKey(`k${Number(current.kid.slice(1)) + 1}`);
      return current.kid;
    },
    setDown(value) { down = value; },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
