// Two builds of one React tree:
//   vite build --mode standalone -> dist/standalone (index.html, base '/'), identity-service auth
//   vite build --mode embed      -> dist/embed (embed/index.html, base '/embed/'), parent-frame auth
// `vite` (dev) serves the standalone entry and proxies /api to the API server on :8080.
// Build flags: VITE_WHITE_LABEL=1 (white-label build), VITE_APP_ENV=<environment> (src/app/environments.ts).
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { defineConfig, loadEnv } from 'vite';

const ROOT = dirname(fileURLToPath(import.meta.url));
const ENVIRONMENTS = ['prod', 'prodWhite', 'qa', 'qaWhite', 'stg', 'stgWhite', 'tst', 'tstWhite', 'local'];

export default defineConfig(({ mode }) => {
  const embed = mode === 'embed';
  const env = loadEnv(mode, ROOT, 'VITE_');
  const appEnv = env.VITE_APP_ENV ?? '';
  if (appEnv !== '' && !ENVIRONMENTS.includes(appEnv)) {
    throw new Error(`VITE_APP_ENV must be one of ${ENVIRONMENTS.join(', ')} (got "${appEnv}")`);
  }
  const apiTarget = process.env.API_PROXY_TARGET ?? 'http://localhost:8080';
  return {
    root: embed ? resolve(ROOT, 'embed') : ROOT,
    envDir: ROOT,
    publicDir: false,
    base: embed ? '/embed/' : '/',
    plugins: [react()],
    build: {
      outDir: resolve(ROOT, 'dist', embed ? 'embed' : 'standalone'),
      emptyOutDir: true,
      manifest: true,
      sourcemap: false,
      chunkSizeWarningLimit: 800,
    },
    server: {
      port: 5173,
      proxy: { '/api': { target: apiTarget, changeOrigin: false } },
      fs: { allow: [ROOT] },
    },
    preview: { proxy: { '/api': { target: apiTarget } } },
  };
});
