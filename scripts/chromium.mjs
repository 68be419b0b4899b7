/**
 * The Chromium the landing-page test drives through playwright-core (which never downloads a browser):
 * CHROMIUM_PATH when set; on Linux x64/arm64 the headless build shipped inside the npm package
 * @sparticuz/chromium (extracted once into the temp directory); elsewhere an installed Chrome or Chromium.
 */

import { existsSync } from 'node:fs';

const SYSTEM_BROWSERS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/** True where @sparticuz/chromium has a binary. */
export const hasPackagedChromium = () => process.platform === 'linux' && ['x64', 'arm64'].includes(process.arch);

/** The browser's executable path, or undefined when none is found. */
export async function findChromium(env = process.env) {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  if (hasPackagedChromium()) {
    const { default: chromium } = await import('@sparticuz/chromium');
    return chromium.executablePath();
  }
  return SYSTEM_BROWSERS.find((path) => existsSync(path));
}
