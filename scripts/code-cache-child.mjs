/**
 * Run by scripts/code-cache.mjs in a fresh Node process: `node code-cache-child.mjs make <loader> <requests.json>`
 * imports a function in script form (scripts/script-form.mjs) with no cache, sends it the warm-up requests, and
 * writes `script.createCachedData()` where the loader looks for it, so that the functions those requests compiled
 * lazily are in the cache too. `node code-cache-child.mjs check <loader>` prints the loader's codeCache status of
 * a fresh import, which the build requires to be "used".
 */

import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [mode, loader, requestsJson] = process.argv.slice(2);
const { default: fn, codeCache } = await import(pathToFileURL(loader).href);

if (mode === 'check') {
  process.stdout.write(`${JSON.stringify({ status: codeCache.status, key: codeCache.key })}\n`);
  process.exit(0);
}

if (codeCache.status !== 'absent') throw new Error(`code cache: ${codeCache.file} exists before it is made`);
for (const { url, method, headers, body } of JSON.parse(requestsJson)) {
  const response = await fn.fetch(new Request(url, { method, headers, body }));
  await response.text();
  if (!response.ok) throw new Error(`code cache: warm-up ${method} ${url} ${body ?? ''} answered ${response.status}`);
}
writeFileSync(codeCache.file, codeCache.create());
// Whatever the warm-up left running (timers of the memory store) has no more to do.
process.exit(0);
