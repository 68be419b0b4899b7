import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/artifact/**', 'node_modules/**'],
    testTimeout: 20_000,
    // The request log (one line per MCP request) is tested in test/observe; elsewhere it is only noise.
    env: { MCP_LOG: 'off' },
    hookTimeout: 20_000,
    pool: 'forks',
    // Most of a test file's time is waiting (child processes, loopback servers, timers), so files run four at a
    // time even on 2 cores, where vitest's default (cores − 1) ran them one by one (docs/testing.md, the times).
    maxWorkers: Math.max(4, availableParallelism()),
    // What tests print on purpose (refused sign-ins, unreachable stand-ins) is shown only for a failing test;
    // all of it, with each file's time, goes to .cache/test-output.log.
    silent: 'passed-only',
    reporters: ['default', './test/support/output-log.ts'],
  },
});
