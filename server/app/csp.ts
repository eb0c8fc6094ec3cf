// The Content-Security-Policy of both front-end builds: its own scripts and styles only (Polaris inlines
// styles), media from this origin, blob: and the S3 store's presigned URLs (any https origin), no plugins.
// The builds differ only in who may frame them: the standalone build nobody, the embedded one (/embed/) the
// configured admin origins (server/app/embed-page.ts).

export function contentSecurityPolicy(config: { s3: { endpoint: string | null } | null }, frameAncestors: string): string {
  const store = config.s3?.endpoint ? ` ${new URL(config.s3.endpoint).origin}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: https:${store}`,
    `media-src 'self' blob: https:${store}`,
    "font-src 'self' data:",
    `connect-src 'self' https:${store}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self' https:",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}
