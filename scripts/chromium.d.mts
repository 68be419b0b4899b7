/** Types of scripts/chromium.mjs, for the TypeScript tests that drive a browser. */
export declare const hasPackagedChromium: () => boolean;
export declare function findChromium(env?: Record<string, string | undefined>): Promise<string | undefined>;
