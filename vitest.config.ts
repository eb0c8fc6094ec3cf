import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// One vitest run with a project per layer. The e2e project needs Chromium and a built front end.
export default defineConfig({
  plugins: [react()],
  test: {
    projects: [
      { extends: true, test: { name: 'contract', include: ['tests/contract/**/*.test.ts'], environment: 'node' } },
      {
        extends: true,
        test: {
          name: 'web',
          include: ['tests/web/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          setupFiles: ['tests/web/setup.ts'],
          // Rendering the app with Polaris takes seconds per test when every project runs at once on 2 busy cores;
          // the default 5 s made whole tests time out at random. Tests wait for states, so this only bounds a hang.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'server',
          include: ['tests/server/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'pipeline',
          include: ['tests/pipeline/**/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 240_000,
          // beforeAll starts the server (up to 240 s on a loaded machine, see startServer) and Chromium.
          hookTimeout: 360_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
