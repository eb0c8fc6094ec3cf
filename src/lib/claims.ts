// What the product promises on this install, computed from what its engines offer (GET /api/settings): never
// a fixed number from another deployment.

/** "Translate any video length into 3 languages." from the configured target languages. */
export function languagesClaim(count: number | undefined): string {
  if (!count) return 'Translate your videos into other languages.';
  return `Translate any video length into ${count === 1 ? 'another language' : `${count} languages`}.`;
}
