import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (`main`) and ESM (`module`) builds. Node (tsx, and the dependencies vitest
    // leaves external such as Pothos and Yoga) loads the CJS one; make inlined test code load the
    // same copy, or graphql rejects a schema "from another module or realm".
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // One embedded PostgreSQL for the run unless TEST_DATABASE_URL names a server (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
