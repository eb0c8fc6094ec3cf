// All SQL of the settings domain: app-wide values in app_settings (key -> jsonb).
import type { Db } from '../../db/index';

export async function readAppSettings(db: Db, keys: string[]): Promise<Map<string, unknown>> {
  const rows = await db.query<{ key: string; value: unknown }>('SELECT key, value FROM app_settings WHERE key IN (SELECT jsonb_array_elements_text($1::jsonb))', [keys]);
  return new Map(rows.map((r) => [r.key, r.value]));
}

export async function writeAppSetting(db: Db, key: string, value: unknown): Promise<void> {
  await db.query(
    'INSERT INTO app_settings (key, value) VALUES ($1, $2::jsonb) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
    [key, JSON.stringify(value)],
  );
}

export async function deleteAppSetting(db: Db, key: string): Promise<void> {
  await db.query('DELETE FROM app_settings WHERE key = $1', [key]);
}
