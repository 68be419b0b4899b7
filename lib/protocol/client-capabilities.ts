/**
 * The client capabilities a server may ask a client to use on the legacy wire (2025-11-25 client/elicitation,
 * client/sampling, client/roots) and MRTR `inputRequests` carry on the modern one, and a compact, order-free
 * code for them: a stateless legacy server has to remember what a client declared at `initialize` in the
 * session id it hands back (lib/http/session.ts), and letters cost a few bytes on every request.
 */

import { isObject } from './jsonrpc.js';

export const ELICITATION_CREATE = 'elicitation/create';
export const SAMPLING_CREATE_MESSAGE = 'sampling/createMessage';
export const ROOTS_LIST = 'roots/list';

/** What a client must declare for each request a server sends it. */
export const CAPABILITY_BY_CLIENT_METHOD: Readonly<Record<string, string>> = {
  [SAMPLING_CREATE_MESSAGE]: 'sampling',
  [ELICITATION_CREATE]: 'elicitation',
  [ROOTS_LIST]: 'roots',
};

export type ClientCapabilities = Record<string, unknown>;

/** One letter per capability or sub-capability; `{}` for elicitation means form mode (2025-11-25 client/elicitation). */
const LETTERS: ReadonlyArray<[letter: string, path: [string] | [string, string]]> = [
  ['e', ['elicitation', 'form']],
  ['u', ['elicitation', 'url']],
  ['s', ['sampling']],
  ['t', ['sampling', 'tools']],
  ['c', ['sampling', 'context']],
  ['r', ['roots']],
];

/** Letters of a capability code, in a fixed order so equal declarations give equal codes. */
export const CAPABILITY_CODE = /^e?u?s?t?c?r?$/;

/** Only the capabilities a server can ask a client to use, with only the sub-capabilities the spec defines. */
export function askableCapabilities(declared: unknown): ClientCapabilities {
  return decodeCapabilities(encodeCapabilities(declared));
}

export function encodeCapabilities(declared: unknown): string {
  if (!isObject(declared)) return '';
  const elicitation = declared.elicitation;
  // An elicitation capability naming no mode declares form mode.
  const formOnly = isObject(elicitation) && !isObject(elicitation.form) && !isObject(elicitation.url);
  return LETTERS.filter(([letter, [top, sub]]) => {
    const value = declared[top];
    if (!isObject(value)) return false;
    if (sub === undefined) return true;
    return isObject(value[sub]) || (letter === 'e' && formOnly);
  }).map(([letter]) => letter).join('');
}

/** The capabilities a code stands for; unknown letters are ignored. */
export function decodeCapabilities(code: string): ClientCapabilities {
  const capabilities: Record<string, Record<string, unknown>> = {};
  for (const [letter, [top, sub]] of LETTERS) {
    if (!code.includes(letter)) continue;
    capabilities[top] ??= {};
    if (sub !== undefined) capabilities[top][sub] = {};
  }
  return capabilities;
}

/** True when `capabilities` lets a server send `method` (for `elicitation/create`, in the request's mode). */
export function allowsClientRequest(capabilities: ClientCapabilities, method: string, params: Record<string, unknown> = {}): boolean {
  const capability = CAPABILITY_BY_CLIENT_METHOD[method];
  if (capability === undefined || !isObject(capabilities[capability])) return false;
  if (method !== ELICITATION_CREATE) return true;
  const modes = capabilities.elicitation as Record<string, unknown>;
  const mode = params.mode === 'url' ? 'url' : 'form';
  return isObject(modes[mode]) || (mode === 'form' && !isObject(modes.url));
}

/**
 * True when `capabilities` (a 2026-07-28 request's `_meta["io.modelcontextprotocol/clientCapabilities"]`) declare
 * the extension `id` in their `extensions` map (SEP-2133): an extension is chosen per request.
 */
export function declaresExtension(capabilities: ClientCapabilities, id: string): boolean {
  const extensions = capabilities.extensions;
  return isObject(extensions) && isObject(extensions[id]);
}
