// Shared helpers of the web tests.
import { act } from '@testing-library/react';
import { vi } from 'vitest';

/** A compact JWT (unsigned: the browser never verifies tokens) with the given payload. */
export function fakeJwt(payload: Record<string, unknown>): string {
  const enc = (o: unknown) =>
    btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(payload)}.c2ln`;
}

/**
 * For a test under vi.useFakeTimers without shouldAdvanceTime: waits for `check` to pass while moving the fake clock
 * forward `stepMs` at a time (the fetch and render path needs its short timers to run), letting real I/O through
 * between steps. Fake time then stands still except for these steps, so when `check` first passes at most `stepMs`
 * of fake time has gone by since the awaited state appeared, however slow the machine is. Gives up after
 * `timeoutMs` of real time with the last failure of `check`.
 */
export async function waitWithFakeClock<T>(check: () => T, { stepMs = 1, timeoutMs = 20_000 } = {}): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return check();
    } catch (e) {
      if (performance.now() > deadline) throw e;
    }
    await act(async () => {
      await vi.advanceTimersByTimeAsync(stepMs);
      await new Promise<void>((r) => setImmediate(r));
    });
  }
}
