/**
 * esbuild gives a module that both the start file and a chunk loaded through `import()` reach a chunk of its own,
 * which the start file then imports: one more file at every cold start (~0.5 ms, more through the script form's
 * `require`). This plugin gives the dependencies' side of such a package its own copy, so our code can import the
 * package at start and a lazy chunk (the MCP SDK client of mounts) keeps its copy. For eventsource-parser (6 KB):
 * the first streamed upstream reply no longer waits for the module loader to bring in a chunk (docs/performance.md
 * "Issue 22 round 8: the first reply and the first call").
 */

import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

const SUFFIX = '?dependency-copy';

/** `packages` imported from node_modules resolve to a copy (the same files under another identity), with their own imports. */
export function dependencyCopiesPlugin(packages) {
  const names = packages.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
  const copied = async (pluginBuild, args) => {
    const resolved = await pluginBuild.resolve(args.path, {
      kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { resolving: true },
    });
    if (resolved.errors.length > 0) return { errors: resolved.errors };
    return { path: resolved.path, suffix: SUFFIX };
  };
  return {
    name: 'dependency-copies',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: new RegExp(`^(?:${names})(?:/|$)`) }, (args) =>
        (!args.pluginData?.resolving && /[\\/]node_modules[\\/]/.test(args.importer) ? copied(pluginBuild, args) : undefined));
      // A copy's own imports (eventsource-parser/stream's ./index.js) are copies too.
      pluginBuild.onResolve({ filter: /^\.\.?\// }, (args) =>
        (!args.pluginData?.resolving && args.pluginData?.copy === true ? copied(pluginBuild, args) : undefined));
      pluginBuild.onLoad({ filter: new RegExp(`[\\\\/]node_modules[\\\\/](?:${names})[\\\\/]`) }, (args) => (args.suffix === SUFFIX
        ? { contents: readFileSync(args.path, 'utf8'), loader: 'js', resolveDir: dirname(args.path), pluginData: { copy: true } }
        : undefined));
    },
  };
}
