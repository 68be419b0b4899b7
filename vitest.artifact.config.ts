import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** Tests of the `vercel build` output; `npm test` runs them after `npm run build`. */
export default defineConfig({
  test: {
    include: ['test/artifact/**/*.test.ts'],
    testTimeout: 20_000,
    // The request log (one line per MCP request) is tested in test/observe; elsewhere it is only noise.
    env: { MCP_LOG: 'off' },
    // As in vitest.config.ts: the files mostly wait (a remote-style build, the Vercel CLI against its stand-in), and
    // each works in its own copy of the output, so they run side by side.
    maxWorkers: Math.max(4, availableParallelism()),
    // As in vitest.config.ts: a test's console output is shown when it fails, and all of it is kept in the log.
    silent: 'passed-only',
    reporters: ['default', ['./test/support/output-log.ts', { file: '.cache/test-output.artifact.log' }]],
  },
});
