import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // Tests read what they need from captured logs; LOG_LEVEL=info npm test shows everything.
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'integration', include: ['tests/integration/**/*.test.ts'], globalSetup: ['tests/support/database-setup.ts'] },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['tests/e2e/**/*.test.ts'], globalSetup: ['tests/support/e2e-setup.ts'], testTimeout: 120_000 },
      },
    ],
  },
});
