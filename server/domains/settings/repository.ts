// All SQL of the settings domain: app-wide values in app_settings (key -> jsonb).
import type { Db } from '../../db/index';
import { all, json, q, run } from '../../db/sql';

export async function readAppSettings(db: Db, keys: string[]): Promise<Map<string, unknown>> {
  if (keys.length === 0) return new Map();
  const rows = await all(db, q.selectFrom('app_settings').select(['key', 'value']).where('key', 'in', keys));
  return new Map(rows.map((r) => [r.key, r.value]));
}

export async function writeAppSetting(db: Db, key: string, value: unknown): Promise<void> {
  await run(db, q.insertInto('app_settings').values({ key, value: json(value) }).onConflict((c) => c.column('key').doUpdateSet({ value: (e) => e.ref('excluded.value') })));
}

export async function deleteAppSetting(db: Db, key: string): Promise<void> {
  await run(db, q.deleteFrom('app_settings').where('key', '=', key));
}
