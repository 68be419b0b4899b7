/**
 * `npm test`'s first step: makes sure the machine has what the suite runs besides Node and npm.
 * - redis-server (the tests start their own instances of it), from the OS package manager;
 * - a Chromium for the landing-page test (scripts/chromium.mjs), on Linux the build inside @sparticuz/chromium,
 *   which needs only the NSS libraries from the OS.
 * On Debian or Ubuntu as root, what is missing is installed with apt-get; elsewhere one line names the exact
 * install command and the run stops. `--dry-run` prints the commands instead of running them.
 */

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findChromium, hasPackagedChromium } from './chromium.mjs';

/** The machine, as far as installing goes. */
export function describeMachine(env = process.env) {
  const release = existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '';
  const ids = /^ID(?:_LIKE)?=(.*)$/gm;
  const family = [...release.matchAll(ids)].flatMap((m) => m[1].replace(/"/g, '').split(' '));
  return {
    platform: process.platform,
    debian: family.includes('debian') || family.includes('ubuntu'),
    fedora: family.includes('fedora') || family.includes('rhel'),
    alpine: family.includes('alpine'),
    arch: family.includes('arch'),
    root: process.getuid?.() === 0,
    brew: Boolean(onPath('brew', env)),
  };
}

/** Where `command` is on PATH, or undefined. */
export function onPath(command, env = process.env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return join(dir, command);
    } catch { /* not here */ }
  }
  return undefined;
}

const PACKAGES = {
  redis: { debian: 'redis-server', fedora: 'redis', alpine: 'redis', arch: 'redis', brew: 'redis' },
  nss: { debian: 'libnss3', fedora: 'nss', alpine: 'nss', arch: 'nss' },
  chromium: { debian: 'chromium', fedora: 'chromium', alpine: 'chromium', arch: 'chromium', brew: '--cask chromium' },
};

/**
 * What to do about the missing `needs` (keys of PACKAGES): `{ run: [[command, ...args], ...] }` when this
 * process can install them (Debian/Ubuntu as root), else `{ tell: 'the exact command for the user' }`.
 */
export function planInstall(needs, machine) {
  const pick = (family) => needs.map((need) => PACKAGES[need][family]);
  if (machine.debian) {
    const packages = pick('debian');
    if (machine.root) {
      return { run: [['apt-get', 'update', '-qq'], ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages]] };
    }
    return { tell: `sudo apt-get install ${packages.join(' ')}` };
  }
  if (machine.fedora) return { tell: `sudo dnf install ${pick('fedora').join(' ')}` };
  if (machine.alpine) return { tell: `apk add ${pick('alpine').join(' ')}` };
  if (machine.arch) return { tell: `sudo pacman -S ${pick('arch').join(' ')}` };
  if (machine.platform === 'darwin') return { tell: needs.map((need) => `brew install ${PACKAGES[need].brew}`).join(' && ') };
  return { tell: `install ${needs.join(' and ')} (${needs.map((n) => PACKAGES[n].debian).join(', ')} on Debian)` };
}

/** Whether the browser starts: the packaged build fails only for missing shared libraries (NSS). */
function browserStarts(path) {
  const result = spawnSync(path, ['--version'], { encoding: 'utf8' });
  return { ok: result.status === 0, why: (result.stderr || result.error?.message || '').trim().split('\n')[0] };
}

/** The prerequisites missing on this machine, as keys of PACKAGES, or why a given browser cannot be used. */
async function findMissing(env) {
  const missing = [];
  if (!onPath('redis-server', env)) missing.push('redis');
  const browser = await findChromium(env);
  if (!browser) missing.push('chromium');
  else {
    const { ok, why } = browserStarts(browser);
    const packaged = hasPackagedChromium() && !env.CHROMIUM_PATH;
    if (!ok && packaged && /error while loading shared libraries/.test(why)) missing.push('nss');
    else if (!ok) return { broken: `the browser at ${browser} does not start (${why}); set CHROMIUM_PATH to a Chrome or Chromium that does.` };
  }
  return missing;
}

async function main(argv, env) {
  const dryRun = argv.includes('--dry-run');
  const missing = await findMissing(env);
  if (!Array.isArray(missing)) {
    console.error(`npm test: ${missing.broken}`);
    return 1;
  }
  if (missing.length === 0) return 0;
  const plan = planInstall(missing, describeMachine(env));
  if (plan.tell) {
    console.error(`npm test needs ${missing.map((n) => PACKAGES[n].debian).join(' and ')}: run \`${plan.tell}\`, then npm test again.`);
    return 1;
  }
  for (const command of plan.run) {
    console.log(`test-prereqs: ${dryRun ? 'would run' : 'running'}: ${command.join(' ')}`);
    if (dryRun) continue;
    const result = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) {
      console.error(`test-prereqs: \`${command.join(' ')}\` failed (exit ${result.status ?? result.signal})`);
      return 1;
    }
  }
  if (dryRun) return 0;
  const still = await findMissing(env);
  if (!Array.isArray(still) || still.length) {
    console.error(`test-prereqs: still missing after installing: ${Array.isArray(still) ? still.join(', ') : still.broken}`);
    return 1;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2), process.env);
}
