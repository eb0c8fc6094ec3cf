// With no JWT_SECRET set (development, the embedded default), the secret is generated once and kept in
// DATA_DIR, so sessions and signed links survive a restart. Several processes starting at once agree on one.
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const JWT_SECRET_FILE = 'jwt-secret';

export async function persistedJwtSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, JWT_SECRET_FILE);
  const read = async () => {
    const s = (await readFile(file, 'utf8')).trim();
    if (s.length < 32) throw new Error(`${file} holds no usable secret (at least 32 characters): remove it or set JWT_SECRET`);
    return s;
  };
  try {
    return await read();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await mkdir(dataDir, { recursive: true });
  // Written whole into a temporary file, then linked into place: link refuses an existing name, so the
  // first process wins and the others read its secret.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
  try {
    await link(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    await rm(tmp, { force: true });
  }
  return read();
}
