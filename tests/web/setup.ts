// Web test setup (vitest + happy-dom): msw server lifecycle, React Testing Library cleanup, fresh storage.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { server } from './msw';

// Lazy route chunks and Polaris render slower when every test file runs in parallel on 2 busy cores: findBy/waitFor
// return as soon as the state is there, so a long limit costs nothing when it passes and only bounds a real failure.
configure({ asyncUtilTimeout: 10_000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
  localStorage.clear();
  sessionStorage.clear();
});
afterAll(() => server.close());
