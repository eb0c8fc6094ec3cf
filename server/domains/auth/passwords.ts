// Password hashing: argon2id (OWASP parameters: 19 MiB, 2 passes, 1 lane).
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

// Algorithm is a const enum in the typings and empty at runtime: pass its value.
const ARGON2ID = 2 as Algorithm;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | null = null;
/** A hash of a random secret with the same parameters: verified against for unknown e-mails (same timing). */
export function dummyHash(): Promise<string> {
  dummy ??= hash(randomBytes(24).toString('base64url'), OPTIONS);
  return dummy;
}
