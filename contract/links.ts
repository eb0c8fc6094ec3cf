import { TEXT } from './errors';

// Video link validation of spec section 5: YouTube (watch, embed, shorts, youtu.be), Google Drive file,
// Vimeo, Vimeo player and Vimeo progressive-download links; anything else is 'Please provide correct link'.
const YT_ID = '[A-Za-z0-9_-]{6,}';
const LINK_PATTERNS: Array<{ kind: VideoLinkKind; re: RegExp }> = [
  { kind: 'youtubeWatch', re: new RegExp(`^https?://(?:www\\.|m\\.|music\\.)?youtube\\.com/watch\\?(?:[^#]*&)?v=${YT_ID}(?:[&#].*)?$`, 'i') },
  { kind: 'youtubeEmbed', re: new RegExp(`^https?://(?:www\\.)?youtube(?:-nocookie)?\\.com/embed/${YT_ID}(?:[/?#].*)?$`, 'i') },
  { kind: 'youtubeShorts', re: new RegExp(`^https?://(?:www\\.|m\\.)?youtube\\.com/shorts/${YT_ID}(?:[/?#].*)?$`, 'i') },
  { kind: 'youtuBe', re: new RegExp(`^https?://youtu\\.be/${YT_ID}(?:[/?#].*)?$`, 'i') },
  { kind: 'googleDrive', re: /^https?:\/\/drive\.google\.com\/file\/d\/[A-Za-z0-9_-]{10,}(?:[/?#].*)?$/i },
  { kind: 'googleDrive', re: /^https?:\/\/drive\.google\.com\/(?:open|uc)\?(?:[^#]*&)?id=[A-Za-z0-9_-]{10,}(?:[&#].*)?$/i },
  { kind: 'vimeo', re: /^https?:\/\/(?:www\.)?vimeo\.com\/(?:channels\/[\w-]+\/|groups\/[\w-]+\/videos\/|showcase\/\d+\/video\/)?\d+(?:\/[A-Za-z0-9]+)?(?:[?#].*)?$/i },
  { kind: 'vimeoPlayer', re: /^https?:\/\/player\.vimeo\.com\/video\/\d+(?:[/?#].*)?$/i },
  {
    kind: 'vimeoProgressive',
    re: /^https?:\/\/player\.vimeo\.com\/(?:progressive_redirect|external)\/[^\s]*\d+[^\s]*$/i,
  },
  { kind: 'vimeoProgressive', re: /^https?:\/\/vod-progressive(?:-[a-z0-9]+)?\.akamaized\.net\/[^\s]+\.mp4(?:\?[^\s]*)?$/i },
];

export type VideoLinkKind =
  | 'youtubeWatch' | 'youtubeEmbed' | 'youtubeShorts' | 'youtuBe' | 'googleDrive' | 'vimeo' | 'vimeoPlayer' | 'vimeoProgressive';

/** The kind of a valid video link, or null (the form shows 'Please provide correct link'). */
export function videoLinkKind(link: string): VideoLinkKind | null {
  const s = link.trim();
  if (s.length === 0 || s.length > 2048 || /\s/.test(s)) return null;
  for (const p of LINK_PATTERNS) if (p.re.test(s)) return p.kind;
  return null;
}

export function isValidVideoLink(link: string): boolean {
  return videoLinkKind(link) !== null;
}

/** The form error for a link: null when valid, else 'Please provide correct link'. */
export function videoLinkError(link: string): string | null {
  return isValidVideoLink(link) ? null : TEXT.incorrectLink;
}
