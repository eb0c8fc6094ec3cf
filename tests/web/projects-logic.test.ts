import { describe, expect, it } from 'vitest';
import { TEXT } from '../../contract/errors';
import { isValidVideoLink, videoLinkError, videoLinkKind } from '../../contract/links';
import type { Credits } from '../../contract/schemas/space';
import { createdDateLabel } from '../../src/features/projects/lib/dates';
import { flagOf, languageOptions } from '../../src/features/projects/lib/languages';
import { checkMinutes } from '../../src/features/projects/lib/minutes';
import { listQuery, pageCount, pageOffset, parsePage } from '../../src/features/projects/lib/paging';
import { projectsListKey } from '../../src/features/projects/api';

describe('offset rule', () => {
  it('is (page-1)*24 and 0 for page 1 or less', () => {
    expect(pageOffset(1)).toBe(0);
    expect(pageOffset(0)).toBe(0);
    expect(pageOffset(-3)).toBe(0);
    expect(pageOffset(2)).toBe(24);
    expect(pageOffset(5)).toBe(96);
    expect(pageOffset(Number.NaN)).toBe(0);
  });
  it('parses the page query', () => {
    expect(parsePage(null)).toBe(1);
    expect(parsePage('3')).toBe(3);
    expect(parsePage('0')).toBe(1);
    expect(parsePage('-2')).toBe(1);
    expect(parsePage('2.5')).toBe(1);
    expect(parsePage('abc')).toBe(1);
  });
  it('builds the list URL and query', () => {
    expect(projectsListKey({ spaceId: 's1', page: 3, searchText: ' cat ' })).toBe('/api/project/paginated?space_id=s1&name=cat&limit=24&offset=48');
    expect(projectsListKey({ spaceId: 's1', page: 1 })).toBe('/api/project/paginated?space_id=s1&limit=24&offset=0');
    expect(projectsListKey({ spaceId: 's 1', page: 2, folderId: 'Q&A' })).toBe('/api/project/paginated?space_id=s+1&folder_id=Q%26A&limit=24&offset=24');
    expect(listQuery(1, '')).toBe('');
    expect(listQuery(2, 'a b')).toBe('?page=2&searchText=a+b');
    expect(pageCount(0)).toBe(1);
    expect(pageCount(24)).toBe(1);
    expect(pageCount(25)).toBe(2);
  });
});

describe('created-date label', () => {
  const now = new Date(2025, 4, 15, 0, 30); // 15 May 2025, 00:30 local
  it('names today, yesterday and tomorrow by calendar day', () => {
    expect(createdDateLabel(new Date(2025, 4, 15, 23, 59), now)).toBe('Today');
    expect(createdDateLabel(new Date(2025, 4, 14, 0, 1), now)).toBe('Yesterday');
    expect(createdDateLabel(new Date(2025, 4, 16, 12), now)).toBe('Tomorrow');
  });
  it('uses day.month.year otherwise', () => {
    expect(createdDateLabel(new Date(2025, 4, 13, 12), now)).toBe('13.05.2025');
    expect(createdDateLabel(new Date(2024, 11, 1), now)).toBe('01.12.2024');
    expect(createdDateLabel(new Date(2025, 4, 13, 12).toISOString(), now)).toBe('13.05.2025');
    expect(createdDateLabel('not a date', now)).toBe('');
  });
});

describe('video links', () => {
  const good = [
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://youtube.com/watch?feature=share&v=dQw4w9WgXcQ&t=10',
    'https://m.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com/embed/dQw4w9WgXcQ',
    'https://www.youtube.com/shorts/abcDEF12345',
    'https://youtu.be/dQw4w9WgXcQ?si=x',
    'https://drive.google.com/file/d/1AbCdEfGhIjKlMnOp/view?usp=sharing',
    'https://drive.google.com/open?id=1AbCdEfGhIjKlMnOp',
    'https://vimeo.com/76979871',
    'https://vimeo.com/channels/staffpicks/76979871',
    'https://player.vimeo.com/video/76979871?h=abc',
    'https://player.vimeo.com/progressive_redirect/playback/76979871/rendition/720p/file.mp4?loc=external',
    'https://vod-progressive.akamaized.net/exp=1/acl=x/vimeo-prod-skyfire-std-us/01/1/file.mp4',
  ];
  const bad = [
    '', 'hello', 'ftp://youtube.com/watch?v=dQw4w9WgXcQ', 'https://www.youtube.com/', 'https://www.youtube.com/watch?x=1',
    'https://evil.com/youtube.com/watch?v=dQw4w9WgXcQ', 'https://youtube.com.evil.com/watch?v=dQw4w9WgXcQ',
    'https://drive.google.com/drive/folders/1AbCdEfGhIjKlMnOp', 'https://vimeo.com/about', 'https://example.com/video.mp4',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ extra',
  ];
  it.each(good)('accepts %s', (l) => {
    expect(isValidVideoLink(l)).toBe(true);
    expect(videoLinkError(l)).toBeNull();
  });
  it.each(bad)('refuses %s', (l) => {
    expect(isValidVideoLink(l)).toBe(false);
    expect(videoLinkError(l)).toBe(TEXT.incorrectLink);
  });
  it('names the kind', () => {
    expect(videoLinkKind('https://youtu.be/dQw4w9WgXcQ')).toBe('youtuBe');
    expect(videoLinkKind('https://player.vimeo.com/video/1')).toBe('vimeoPlayer');
  });
});

describe('languages', () => {
  const lang = (id: number, value: string, cc: string, is_free = false) => ({
    id, value, label: value.toUpperCase(), translation_label: `${value} (tr)`, country_code: cc, country_label: cc,
    is_dialect: false, is_free, is_glossary_available: false, is_voice_preset_available: false, mean_char_per_syllable: 3,
    speech_rate: 1, speech_tempo_feature: false, voice_clone: false, voice_clone_beta: false, voice_clone_label: null,
    voice_preset_dialect: null, voice_preset_dialect_label: null,
  });
  it('makes flags from country codes', () => {
    expect(flagOf('us')).toBe('🇺🇸');
    expect(flagOf('ES')).toBe('🇪🇸');
    expect(flagOf('')).toBe('');
    expect(flagOf('usa')).toBe('');
  });
  it('sorts by id, drops free languages from translation unless enabled', () => {
    const list = [lang(3, 'fr', 'FR'), lang(1, 'en', 'US'), lang(2, 'xx', 'GB', true)];
    expect(languageOptions(list).map((o) => o.value)).toEqual(['en', 'xx', 'fr']);
    expect(languageOptions(list, { translation: true }).map((o) => o.value)).toEqual(['en', 'fr']);
    expect(languageOptions(list, { translation: true, freeLanguages: true })).toHaveLength(3);
    expect(languageOptions(list)[0].label).toBe('🇺🇸 English');
    // Without colour emoji support the names are shown alone; a code Intl does not know keeps the server's label.
    expect(languageOptions(list, { flags: false }).map((o) => o.label)).toEqual(['English', 'XX', 'French (Français)']);
  });
  it('names a language the same way in the source and the target pickers (the user\'s locale first, then its own name)', () => {
    const list = [lang(2, 'es', 'ES'), lang(5, 'de', 'DE'), lang(7, 'es-419', 'MX')];
    const src = languageOptions(list, { flags: false });
    const dst = languageOptions(list, { translation: true, flags: false });
    expect(dst).toEqual(src);
    expect(src.map((o) => o.label)).toEqual(['Spanish (Español)', 'German (Deutsch)', 'Latin American Spanish (Español latinoamericano)']);
  });
});

describe('enough minutes', () => {
  const credits = (total: number, used: number): Credits => ({ minutes: { total, used }, video: { total: 0, used: 0 }, lipsync_free_minutes: 0 });
  it('needs ceil(seconds/60) available minutes', () => {
    expect(checkMinutes(credits(3, 0), 180).ok).toBe(true);
    expect(checkMinutes(credits(3, 0), 181)).toMatchObject({ ok: false, needed: 4, available: 3 });
    expect(checkMinutes(credits(10, 8), 61).ok).toBe(true);
    expect(checkMinutes(credits(10, 9.5), 30)).toMatchObject({ ok: false, needed: 1 });
    expect(checkMinutes(credits(10, 9.5), 30).message).toBe('This video needs 1 minute, you have 0.5 available.');
    expect(checkMinutes(null, 10).ok).toBe(false);
    expect(checkMinutes(null, null).ok).toBe(true);
  });
});
