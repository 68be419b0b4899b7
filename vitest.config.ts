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
  },
});
