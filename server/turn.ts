// The event loop's turn inside a long loop: the embedded database and the API share one thread, so work on a
// user-sized input (an hour's transcript, a 50,000-term dictionary, an hour's quality report) is cut in slices
// and lets other requests be answered between two.

/** Resolves after the event loop has run what was waiting (timers, sockets). */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
