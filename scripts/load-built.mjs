/**
 * Loads a function from the `vercel build` output the way the platform does: the handler file named by its
 * .vc-config.json, whose default export is a Web-standard `{ fetch(request) }`. Tests and benchmarks call it
 * directly, so what they exercise is the deployed artifact.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const OUTPUT = fileURLToPath(new URL('../.vercel/output', import.meta.url));

/** Path of the built handler module of `name` (e.g. 'api/mcp') in a Build Output API directory. */
export function builtFunctionPath(name, output = OUTPUT) {
  const dir = `${output}/functions/${name}.func`;
  const config = JSON.parse(readFileSync(`${dir}/.vc-config.json`, 'utf8'));
  return `${dir}/${config.handler}`;
}

/** Imports the built function `name` and returns its `fetch`. */
export async function loadBuiltFunction(name, output = OUTPUT) {
  const module = await import(pathToFileURL(builtFunctionPath(name, output)).href);
  const handler = module.default;
  if (typeof handler?.fetch !== 'function') throw new TypeError(`${name}: the built module has no default { fetch }`);
  return { fetch: (request) => handler.fetch(request) };
}
