/**
 * A function's start-up bundle as a classic script, so that V8 can start it from a code cache made at build time
 * (scripts/code-cache.mjs). Node's `vm.Script` takes `cachedData`; an ES module cannot be given one. The entry that
 * esbuild wrote becomes two files:
 *
 * - `<name>.script.js`: the same code as one function expression, `(function (exports, require, module, __import,
 *   __import_meta_url) { … })`, in strict mode as the module was; its `import()` calls go through `__import`, which
 *   the loader hands in, so the chunks still load lazily. It resolves them against its own URL, the entry's, to an
 *   absolute URL first, as a literal `import()` there would (a module runner such as vitest's resolves a computed
 *   relative specifier against something else).
 *   Stack traces name this file, at the lines and columns of its text (on Node 20 by its path in the function).
 * - `<name>.js`, the loader (an ES module, the handler the platform imports): it reads the script, and the cache
 *   built for the running V8 when there is one, compiles, runs, and re-exports what the entry exported.
 *
 * The conversion is esbuild's (ESM → CommonJS, which keeps `import()` as it is); what is done to its text is checked:
 * what is rewritten is what esbuild parses as `import()` and none is left, and a conversion esbuild refuses or warns
 * about (top-level await; import.meta beyond its url, which a script has no value for) is a ScriptFormError: the
 * entry then stays the ES module it was.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { build, transform } from 'esbuild';

/** An entry the script form cannot hold (top-level await, import.meta beyond its url…): it stays an ES module. */
export class ScriptFormError extends Error {}

/** The first line bundle-functions.mjs puts before every bundle (its `banner`); the script is handed `require`. */
export const REQUIRE_BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
const PARAMETERS = ['exports', 'require', 'module', '__import', '__import_meta_url'];

/** What esbuild parses of `code`: the specifiers `import()` is called with (each once, sorted) and its exports. */
async function parse(code) {
  const found = [];
  const { metafile } = await build({
    stdin: { contents: code, loader: 'js' },
    bundle: true, write: false, format: 'esm', platform: 'node', logLevel: 'silent', metafile: true, outfile: 'parsed.js',
    plugins: [{
      name: 'list-imports',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === 'dynamic-import') found.push(args.path);
          return { path: args.path, external: true };
        });
      },
    }],
  });
  return { dynamicImports: [...new Set(found)].sort(), exports: Object.values(metafile.outputs)[0].exports };
}

/** The entry module's text (without the require banner) as the script's text. */
export async function scriptText(moduleCode) {
  const { code, warnings } = await transform(moduleCode, {
    format: 'cjs', target: 'node20', minifyWhitespace: true, minifySyntax: true, logLevel: 'silent',
    define: { 'import.meta.url': '__import_meta_url' },
    supported: { 'dynamic-import': true },
  }).catch((error) => {
    // Such as top-level await, which a function body cannot hold.
    throw new ScriptFormError(`script form: ${error.errors?.map((e) => e.text).join('; ') ?? error.message}`);
  });
  // Such as import.meta beyond its url, which the conversion would leave empty.
  if (warnings.length) throw new ScriptFormError(`script form: ${warnings.map((w) => w.text).join('; ')}`);
  const expected = (await parse(code)).dynamicImports;
  const rewritten = [];
  const body = code.replace(/\bimport\((?="([^"\\]*)"\))/g, (match, specifier) => {
    rewritten.push(specifier);
    return '__import(';
  });
  if (JSON.stringify([...new Set(rewritten)].sort()) !== JSON.stringify(expected)) {
    throw new ScriptFormError(`script form: rewrote import() of ${JSON.stringify(rewritten)}, but the entry has ${JSON.stringify(expected)}`);
  }
  const left = (await parse(body)).dynamicImports;
  if (left.length) throw new ScriptFormError(`script form: import() of ${left.join(', ')} left in the script`);
  // The loader reads it as latin1, one byte per character, which is exact for ASCII only (esbuild's default output).
  if (/[^\x00-\x7f]/.test(body)) throw new ScriptFormError('script form: the script is not ASCII');
  return `(function(${PARAMETERS.join(',')}){"use strict";${body}\n})`;
}

/** Names the entry exports, default aside; each becomes an export of the loader. */
async function namedExports(code) {
  const names = (await parse(code)).exports.filter((name) => name !== 'default');
  const bad = names.find((name) => !/^[A-Za-z_$][\w$]*$/.test(name));
  if (bad !== undefined) throw new ScriptFormError(`script form: the entry exports ${JSON.stringify(bad)}, which the loader cannot name`);
  return names;
}

/**
 * The loader's text for the script `scriptFile` (a name beside it) exporting `names` and a default. `shortName` is
 * the script's path in the function (api/mcp.script.js): V8 before 12 (Node 20) names a script compiled from a cache
 * as it was named when the cache was made, on the build machine, so there it is named by that path, the same at
 * build and run time; later V8s take the name they are given, the file's absolute path.
 */
export function loaderText(scriptFile, names, stem, shortName) {
  const exported = names.length ? `export const{${names.join(',')}}=module.exports;` : '';
  return `// Written by scripts/script-form.mjs: this function's code is ${scriptFile}, compiled from the V8 code cache
// built for the running V8 when there is one (docs/architecture.md "Bundling"). codeCache says what happened.
// --expose-gc (AWS Lambda's Node runtimes start Node so) enters V8's flag hash: such a Node has a cache of its own.
const here=import.meta.url,{readFileSync}=process.getBuiltinModule("node:fs"),{Script}=process.getBuiltinModule("node:vm"),{fileURLToPath}=process.getBuiltinModule("node:url");
const file=fileURLToPath(new URL(${JSON.stringify(`./${scriptFile}`)},here)),filename=parseInt(process.versions.v8)<12?${JSON.stringify(shortName)}:file,key=\`\${process.versions.v8}-\${process.arch}\${typeof gc==="function"?"-expose-gc":""}\`,cacheFile=fileURLToPath(new URL(\`./${stem}.\${key}.cache\`,here));
let cachedData;try{cachedData=readFileSync(cacheFile)}catch{}
const script=new Script(readFileSync(file,"latin1"),{filename,cachedData}),status=cachedData===undefined?"absent":script.cachedDataRejected?"rejected":"used";
cachedData=undefined; // V8 is done with it: the instance need not keep its ~300 KB
// Built-ins are all the script requires at start; a require of its own is made only for anything else.
let requireHere;const require=(id)=>process.getBuiltinModule(id)??(requireHere??=process.getBuiltinModule("node:module").createRequire(here))(id);
const module={exports:{}};
script.runInThisContext()(module.exports,require,module,(specifier)=>import(new URL(specifier,here).href),here);
/** "used", "rejected" (V8 refused it: another V8 build or other V8 flags) or "absent" (none built for this V8). */
export const codeCache={status,key,file:cacheFile,create:()=>script.createCachedData()};
// A refused cache is the one the operator can act on (docs/performance.md): said once per instance, as JSON.
if(status==="rejected"&&process.env.MCP_LOG!=="off")console.log(JSON.stringify({time:new Date().toISOString(),msg:"agent-mcp code cache refused",v8:process.versions.v8,execArgv:process.execArgv,why:"V8 refused the code cache built for this V8 version: this Node runs with other V8 flags (command line or NODE_OPTIONS) or is another build; the function compiled its code at start instead"}));
${exported}export default module.exports.default;
`;
}

/**
 * Turns the ES module `entryFile` (bundle-functions.mjs's output) into a loader and its script, in place; `root` is
 * the function's directory, which stack traces on Node 20 name the script relative to.
 */
export async function toScriptForm(entryFile, root = dirname(dirname(entryFile))) {
  const code = readFileSync(entryFile, 'utf8');
  if (!code.startsWith(`${REQUIRE_BANNER}\n`)) throw new Error(`script form: ${entryFile} does not start with the require banner`);
  const moduleCode = code.slice(REQUIRE_BANNER.length + 1);
  const stem = basename(entryFile).replace(/\.m?js$/, '');
  const scriptFile = `${stem}.script.js`;
  const shortName = relative(root, join(dirname(entryFile), scriptFile)).replaceAll('\\', '/');
  // Both made before either is written: an entry the form cannot hold is left as it was.
  const script = await scriptText(moduleCode);
  const loader = loaderText(scriptFile, await namedExports(moduleCode), stem, shortName);
  writeFileSync(join(dirname(entryFile), scriptFile), script);
  writeFileSync(entryFile, loader);
  return { script: join(dirname(entryFile), scriptFile) };
}
