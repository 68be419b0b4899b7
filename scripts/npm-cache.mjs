/**
 * Tools the test suite runs but the project does not depend on, installed from the npm registry into .cache/
 * on first use, at pinned versions. Used for what is too heavy to be a devDependency or needs another Node:
 * the Node 22 binary (the conformance suite and the MCP Inspector need Node >= 22; our code runs on 20) and
 * the MCP Inspector itself (about 190 packages and 120 MB, engines >= 22.19, which would warn EBADENGINE on
 * every `npm install` under Node 20).
 *
 * An install goes to a fresh temporary directory and is renamed into place, so test files that ask at once,
 * or an install cut short, never leave a half-installed tool behind.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = `${ROOT}.cache`;
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const INSTALL_TIMEOUT_MS = 180_000; // below the 240 s the client tests give their set-up, so a stuck npm fails as itself

export const NODE22_VERSION = '22.23.3';
/** The Node of Vercel's nodejs24.x runtime, whose V8 a function's code cache is built for (scripts/code-cache.mjs). */
export const NODE24_VERSION = '24.21.0';
const NODE_VERSIONS = { 22: NODE22_VERSION, 24: NODE24_VERSION };
export const INSPECTOR_VERSION = '2.12.0';
const NODE_PACKAGE = `node-${process.platform}-${process.arch}`;

/**
 * Installs `spec` (name@version) into `.cache/<dir>` unless `.cache/<dir>/<probe>` exists; returns that path.
 * Install scripts are not run: none of the cached tools needs one (the Inspector's only cascades into its
 * source checkout's clients and exits at once when installed as a package).
 */
export function ensureCached(dir, spec, probe, npmArgs = []) {
  const target = `${CACHE}/${dir}`;
  if (existsSync(`${target}/${probe}`)) return `${target}/${probe}`;
  console.log(`installing ${spec} into .cache/${dir} (once)`);
  mkdirSync(CACHE, { recursive: true });
  const staging = mkdtempSync(`${CACHE}/.${dir}-`);
  try {
    // npm's output is kept, not shown: offline, its errors are a score of raw lines before the caller's one calm one.
    const result = spawnSync(NPM, ['install', '--prefix', staging, '--no-save', '--no-package-lock', '--ignore-scripts',
      '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false', ...npmArgs, spec],
    { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
    if (result.status !== 0 || !existsSync(`${staging}/${probe}`)) {
      const log = `${CACHE}/${dir}-install.log`;
      writeFileSync(log, `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `${result.error.message}\n` : ''}`);
      throw new Error(`could not install ${spec} from the npm registry (npm exited ${result.status ?? result.signal}`
        + `${npmErrorCode(result.stderr ?? '')}; its output is in .cache/${dir}-install.log)`);
    }
    if (existsSync(`${target}/${probe}`)) return `${target}/${probe}`; // another process finished first
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return `${target}/${probe}`;
}

/** npm's error code (`npm error code ECONNREFUSED`), as `: ECONNREFUSED`, or nothing. */
function npmErrorCode(stderr) {
  const code = /^npm (?:error|ERR!) code (\S+)/m.exec(stderr)?.[1];
  return code ? `: ${code}` : '';
}

/**
 * The Node binary of a major we pin (22, 24) from the registry package `node-<os>-<arch>`, or undefined. `quick`:
 * no retries, so that a build without the network goes on in seconds rather than a minute of npm's.
 */
export function ensureNode(major, { quick = false } = {}) {
  const version = NODE_VERSIONS[major];
  if (!version) return undefined;
  return ensureCached(`node${major}`, `${NODE_PACKAGE}@${version}`, `node_modules/${NODE_PACKAGE}/bin/node`,
    quick ? ['--fetch-retries=0', '--fetch-timeout=30000'] : []);
}

/** The Node 22 binary from the registry package `node-<os>-<arch>`. */
export function ensureNode22() {
  return ensureNode(22);
}

/** The MCP Inspector's launcher script (run it with ensureNode22()'s binary). */
export function ensureInspector() {
  return ensureCached('inspector', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`,
    'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
}
