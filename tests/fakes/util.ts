// Helpers for adapter tests: an instant, recording sleep (back-off delays are asserted, not waited),
// a log collector, and a 16 kHz mono test WAV.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sleep } from '../../server/engines/adapters/http';
import { toneWav } from './base';

export function recordingSleep(): { sleep: Sleep; delays: number[] } {
  const delays: number[] = [];
  const sleep: Sleep = async (ms, signal) => {
    delays.push(ms);
    if (signal?.aborted) throw signal.reason;
  };
  return { sleep, delays };
}

export function collectLog(): { log: (line: string) => void; lines: string[] } {
  const lines: string[] = [];
  return { log: (l) => lines.push(l), lines };
}

export function tempDir(prefix = 'adapters-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes a 16 kHz mono 16-bit WAV of `seconds` and returns its path. */
export function writeTestWav(dir: string, seconds: number, name = 'in.wav'): string {
  const p = join(dir, name);
  writeFileSync(p, toneWav(seconds, 16000));
  return p;
}

/** `.catch(caught)` turns a rejection into the error value, typed loosely for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const caught = (e: unknown): any => e;
