/**
 * A feature a deployment may leave unconfigured (token budgets) loads with its first use, through `import()` of its
 * module, so a deployment without it parses and deserializes none of its code at start (docs/architecture.md
 * rule 11). A plain `import()` would not do: esbuild puts what the feature's chunk shares with the start file
 * (principalKey, the counted warnings, …) in chunks of their own, which the start file then imports, and each
 * file a cold start loads costs ~0.5 ms, more than the feature's bytes (docs/performance.md "Issue 48: the cold
 * start of an unconfigured feature").
 *
 * So the feature's module, when `import()`ed, and every module of ours it imports, resolve to a copy (the same file
 * under another identity, as dependency-copies.mjs does for a package): the chunk holds all it needs and the start
 * file keeps its own. The start file may still import the feature's module for what start-up itself needs (reading
 * its settings, which must fail early); tree shaking keeps only that there. A copy has module state of its own, so
 * a feature listed here keeps none that the start path must share: its state lives in what its entry returns.
 */

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const SUFFIX = '?lazy-feature';

/** `modules` (paths under `projectRoot`, e.g. lib/limits/token-budgets.ts): each `import()` of one is a self-contained chunk. */
export function lazyFeaturesPlugin(projectRoot, modules) {
  const features = new Set(modules.map((module) => join(projectRoot, module)));
  return {
    name: 'lazy-features',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.pluginData?.resolving) return undefined;
        const copyOf = args.pluginData?.lazyFeature;
        if (copyOf === undefined && args.kind !== 'dynamic-import') return undefined;
        const resolved = await pluginBuild.resolve(args.path, {
          kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { resolving: true },
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (copyOf === undefined && !features.has(resolved.path)) return undefined;
        // Each feature's copies are its own: two features sharing one copy would split it into a chunk both load.
        const feature = copyOf ?? resolved.path;
        return { path: resolved.path, suffix: `${SUFFIX}=${[...features].indexOf(feature)}`, pluginData: { lazyFeature: feature } };
      });
      pluginBuild.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => (args.suffix?.startsWith(SUFFIX)
        ? { contents: readFileSync(args.path, 'utf8'), loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js', resolveDir: dirname(args.path), pluginData: args.pluginData }
        : undefined));
    },
  };
}
