// Web test setup (vitest + happy-dom): msw server lifecycle, React Testing Library cleanup, fresh storage.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { server } from './msw';

// Lazy route chunks and Polaris render slower when every test file runs in parallel on 2 cores.
configure({ asyncUtilTimeout: 3000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
  localStorage.clear();
  sessionStorage.clear();
});
afterAll(() => server.close());
