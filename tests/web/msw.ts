// The one msw server of the web tests. Handlers are added per test with server.use(...) and reset after each.
// The live project streams answer 503 unless a test says otherwise: the pages then poll (their fallback).
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';

export const server = setupServer(
  http.get('*/api/project/events', () => new HttpResponse(null, { status: 503 })),
  http.get('*/api/project/:id/events', () => new HttpResponse(null, { status: 503 })),
);
