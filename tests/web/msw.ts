// The one msw server of the web tests. Handlers are added per test with server.use(...) and reset after each.
import { setupServer } from 'msw/node';

export const server = setupServer();
