// Small inline illustrations (no network, no asset pipeline).
function svg(body: string, w = 240, h = 160): string {
  return `data:image/svg+xml;utf8,${encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`,
  )}`;
}

/** A film frame with a speech bubble: the app's empty states. */
export const EMPTY_ILLUSTRATION = svg(
  '<rect x="30" y="30" width="150" height="100" rx="12" fill="#e3e8ef"/>' +
    '<rect x="44" y="44" width="122" height="72" rx="6" fill="#f6f8fb"/>' +
    '<path d="M96 66 L122 80 L96 94 Z" fill="#1f2a44"/>' +
    '<rect x="150" y="20" width="70" height="40" rx="10" fill="#1c6dd0"/>' +
    '<path d="M162 60 L158 72 L174 60 Z" fill="#1c6dd0"/>' +
    '<rect x="162" y="32" width="46" height="5" rx="2" fill="#fff"/><rect x="162" y="43" width="30" height="5" rx="2" fill="#fff"/>',
);

/** Tools crossed: the maintenance screen. */
export const MAINTENANCE_ILLUSTRATION = svg(
  '<circle cx="120" cy="80" r="62" fill="#e3e8ef"/>' +
    '<rect x="70" y="74" width="100" height="12" rx="6" fill="#1f2a44" transform="rotate(45 120 80)"/>' +
    '<rect x="70" y="74" width="100" height="12" rx="6" fill="#1c6dd0" transform="rotate(-45 120 80)"/>' +
    '<circle cx="120" cy="80" r="10" fill="#fff"/>',
);
