// Every environment variable, validated with valibot at start-up.
import * as v from 'valibot';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { EngineConfigError, loadEngineConfig } from './engines/config';

const Bool = v.pipe(v.optional(v.string(), ''), v.transform((s) => /^(1|true|yes|on)$/i.test(s)));
const Int = (def: number) => v.pipe(v.optional(v.string(), String(def)), v.transform(Number), v.integer(), v.minValue(0));
const Opt = v.pipe(v.optional(v.string(), ''), v.transform((s) => (s.trim() === '' ? null : s.trim())));

const EnvSchema = v.object({
  NODE_ENV: v.optional(v.string(), 'development'),
  PORT: Int(8080),
  HOST: v.optional(v.string(), '0.0.0.0'),
  DATA_DIR: v.optional(v.string(), './data'),
  DATABASE_URL: Opt,
  REDIS_URL: Opt,
  PUBLIC_URL: Opt,
  JWT_SECRET: Opt,
  ACCESS_TOKEN_TTL: Int(900),
  REFRESH_TOKEN_TTL: Int(30 * 24 * 3600),
  EMBED_APP_KEY: Opt,
  EMBED_APP_SECRET: Opt,
  OIDC_ISSUER: Opt,
  OIDC_CLIENT_ID: Opt,
  OIDC_CLIENT_SECRET: Opt,
  OIDC_NAME: v.optional(v.string(), 'Google'),
  SMTP_URL: Opt,
  SMTP_FROM: v.optional(v.string(), 'Dubbing Studio <no-reply@localhost>'),
  WHITE_LABEL: Bool,
  MAINTENANCE: Bool,
  MAX_VIDEO_SIZE: Int(2 * 1024 * 1024 * 1024),
  MAX_VIDEO_DURATION: Int(3 * 3600),
  MAX_VIDEO_DOWNLOAD_DURATION: Int(2 * 3600),
  WORKER_CONCURRENCY: Int(1),
  EMBEDDED_WORKER: v.pipe(v.optional(v.string(), '1'), v.transform((s) => s !== '0' && s.toLowerCase() !== 'false')),
  LOGIN_MAX_FAILURES_IP: Int(20),
  LOGIN_MAX_FAILURES_ACCOUNT: Int(5),
  LOGIN_WINDOW_SECONDS: Int(900),
  TRUST_PROXY: Bool,
  S3_ENDPOINT: Opt,
  S3_BUCKET: Opt,
  S3_ACCESS_KEY_ID: Opt,
  S3_SECRET_ACCESS_KEY: Opt,
  S3_REGION: v.optional(v.string(), 'us-east-1'),
});

export type Config = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const parsed = v.safeParse(EnvSchema, env);
  if (!parsed.success) {
    const msg = parsed.issues.map((i) => `${i.path?.map((p) => p.key).join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${msg}`);
  }
  const e = parsed.output;
  const production = e.NODE_ENV === 'production';
  if (production && !e.JWT_SECRET) {
    throw new ConfigError('JWT_SECRET must be set in production (at least 32 characters)');
  }
  if (e.JWT_SECRET && e.JWT_SECRET.length < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 characters');
  }
  if ((e.EMBED_APP_KEY && !e.EMBED_APP_SECRET) || (!e.EMBED_APP_KEY && e.EMBED_APP_SECRET)) {
    throw new ConfigError('EMBED_APP_KEY and EMBED_APP_SECRET must be set together');
  }
  if (e.OIDC_ISSUER && !e.OIDC_CLIENT_ID) throw new ConfigError('OIDC_CLIENT_ID is required with OIDC_ISSUER');
  // Model engines (ASR_ENGINE, MT_ENGINE, TTS_ENGINE, LLM_ENGINE and their keys/URLs: server/engines/config.ts).
  // The built-in defaults need no variable; a bad setting stops start-up. Messages never contain a key.
  let engines: ReturnType<typeof loadEngineConfig>;
  try {
    engines = loadEngineConfig(env);
  } catch (err) {
    if (err instanceof EngineConfigError) throw new ConfigError(err.message);
    throw err;
  }
  return {
    env: e.NODE_ENV,
    production,
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    publicUrl: e.PUBLIC_URL,
    // Development without JWT_SECRET: a random secret per process (tokens do not survive restarts).
    jwtSecret: e.JWT_SECRET ?? randomBytes(32).toString('hex'),
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL,
    embed: e.EMBED_APP_KEY && e.EMBED_APP_SECRET ? { key: e.EMBED_APP_KEY, secret: e.EMBED_APP_SECRET } : null,
    oidc: e.OIDC_ISSUER && e.OIDC_CLIENT_ID
      ? { issuer: e.OIDC_ISSUER, clientId: e.OIDC_CLIENT_ID, clientSecret: e.OIDC_CLIENT_SECRET, name: e.OIDC_NAME }
      : null,
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM } : null,
    whiteLabel: e.WHITE_LABEL,
    maintenance: e.MAINTENANCE,
    limits: {
      maxVideoSize: e.MAX_VIDEO_SIZE,
      maxVideoDuration: e.MAX_VIDEO_DURATION,
      maxVideoDownloadDuration: e.MAX_VIDEO_DOWNLOAD_DURATION,
    },
    worker: { embedded: e.EMBEDDED_WORKER, concurrency: Math.max(1, e.WORKER_CONCURRENCY) },
    loginLimits: {
      ip: e.LOGIN_MAX_FAILURES_IP,
      account: e.LOGIN_MAX_FAILURES_ACCOUNT,
      windowSeconds: e.LOGIN_WINDOW_SECONDS,
    },
    trustProxy: e.TRUST_PROXY,
    s3: e.S3_BUCKET
      ? {
          endpoint: e.S3_ENDPOINT,
          bucket: e.S3_BUCKET,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          region: e.S3_REGION,
        }
      : null,
    engines,
  };
}
