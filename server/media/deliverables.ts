// Deliverables with every language of a video (issue 31): one MP4 or MKV holding the original audio and each
// dubbed language as its own tagged audio track plus a subtitle track per language, and an HLS package with one
// audio rendition and one WebVTT rendition per language. The video is always stream-copied (never re-encoded).
// ffmpeg does the muxing and the segmenting; only the HLS master playlist (a few lines naming the renditions,
// which ffmpeg 5.1 cannot label with language names nor group several subtitle languages in) is written here.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FFMPEG, FFMPEG_BASE } from './args';
import { runTool, type OpOptions } from './ffmpeg';

/** ISO 639-1 (the API's codes) to ISO 639-2 (terminology codes: fra, deu; what MP4, Matroska and players read). */
const ISO639_2: Record<string, string> = {
  af: 'afr', am: 'amh', ar: 'ara', az: 'aze', be: 'bel', bg: 'bul', bn: 'ben', bs: 'bos', ca: 'cat', cs: 'ces', cy: 'cym',
  da: 'dan', de: 'deu', el: 'ell', en: 'eng', es: 'spa', et: 'est', eu: 'eus', fa: 'fas', fi: 'fin', fil: 'fil', fr: 'fra',
  ga: 'gle', gl: 'glg', gu: 'guj', he: 'heb', hi: 'hin', hr: 'hrv', hu: 'hun', hy: 'hye', id: 'ind', is: 'isl', it: 'ita',
  ja: 'jpn', ka: 'kat', kk: 'kaz', km: 'khm', kn: 'kan', ko: 'kor', lo: 'lao', lt: 'lit', lv: 'lav', mk: 'mkd', ml: 'mal',
  mn: 'mon', mr: 'mar', ms: 'msa', mt: 'mlt', my: 'mya', nb: 'nob', ne: 'nep', nl: 'nld', nn: 'nno', no: 'nor', pa: 'pan',
  pl: 'pol', ps: 'pus', pt: 'por', ro: 'ron', ru: 'rus', si: 'sin', sk: 'slk', sl: 'slv', so: 'som', sq: 'sqi', sr: 'srp',
  sv: 'swe', sw: 'swa', ta: 'tam', te: 'tel', th: 'tha', tl: 'tgl', tr: 'tur', uk: 'ukr', ur: 'urd', uz: 'uzb', vi: 'vie',
  yue: 'zho', zh: 'zho', zu: 'zul',
};

/** The ISO 639-2 code of an API language code ('es', 'pt-BR'), 'und' when unknown. */
export function iso639_2(code: string): string {
  const base = code.toLowerCase().split(/[-_]/)[0] ?? '';
  if (ISO639_2[base]) return ISO639_2[base];
  return /^[a-z]{3}$/.test(base) ? base : 'und';
}

/** The English name of a language code ("Spanish", "Portuguese (Brazil)"). */
export function languageTitle(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

export interface DeliverableTrack {
  /** API language code (639-1). */
  lang: string;
  /** Local audio file (AAC is copied, anything else encoded to AAC). */
  audio: string;
  /** The audio is AAC already (copied as is). */
  audioIsAac: boolean;
  /** Local SRT of the language, if any. */
  srt: string | null;
  /** Title shown by players; default: the language name. */
  title?: string;
}

export interface DeliverableInput {
  /** The original video: its first video stream is copied. */
  video: string;
  /** Original audio first, then each dubbed language. */
  tracks: DeliverableTrack[];
  /** Index in `tracks` of the default audio. */
  defaultTrack: number;
}

const titleOf = (t: DeliverableTrack) => t.title ?? languageTitle(t.lang);

/** The ffmpeg arguments muxing `input` into one MP4 (mov_text subtitles) or MKV (SRT subtitles) at `out`. */
export function muxAllArgs(input: DeliverableInput, format: 'mp4' | 'mkv', out: string): string[] {
  const args = [...FFMPEG_BASE, '-i', input.video];
  // Input 0: the video (and the original audio when the first track is the video's own file).
  const audioInputs: number[] = [];
  let next = 1;
  for (const t of input.tracks) {
    if (t.audio === input.video) audioInputs.push(0);
    else {
      args.push('-i', t.audio);
      audioInputs.push(next++);
    }
  }
  const subs: Array<{ input: number; track: DeliverableTrack }> = [];
  for (const t of input.tracks) {
    if (!t.srt) continue;
    args.push('-i', t.srt);
    subs.push({ input: next++, track: t });
  }
  args.push('-map', '0:v:0');
  audioInputs.forEach((i) => args.push('-map', `${i}:a:0`));
  subs.forEach((s) => args.push('-map', `${s.input}:s:0`));
  args.push('-c:v', 'copy');
  input.tracks.forEach((t, i) => {
    args.push(`-c:a:${i}`, ...(t.audioIsAac ? ['copy'] : ['aac', `-b:a:${i}`, '192k']));
    const lang = iso639_2(t.lang);
    const title = titleOf(t);
    args.push(`-metadata:s:a:${i}`, `language=${lang}`, `-metadata:s:a:${i}`, `title=${title}`);
    if (format === 'mp4') args.push(`-metadata:s:a:${i}`, `handler_name=${title}`);
    args.push(`-disposition:a:${i}`, i === input.defaultTrack ? 'default' : '0');
  });
  subs.forEach((s, i) => {
    const title = titleOf(s.track);
    args.push(`-c:s:${i}`, format === 'mp4' ? 'mov_text' : 'srt');
    args.push(`-metadata:s:s:${i}`, `language=${iso639_2(s.track.lang)}`, `-metadata:s:s:${i}`, `title=${title}`);
    if (format === 'mp4') args.push(`-metadata:s:s:${i}`, `handler_name=${title}`);
    args.push(`-disposition:s:${i}`, '0');
  });
  args.push('-map_metadata', '-1', '-map_chapters', '-1');
  if (format === 'mp4') args.push('-movflags', '+faststart', '-f', 'mp4');
  else args.push('-f', 'matroska');
  args.push(out);
  return args;
}

/** Writes the MP4 or MKV with every language to `out`. */
export async function muxAllLanguages(input: DeliverableInput, format: 'mp4' | 'mkv', out: string, o: OpOptions = {}): Promise<void> {
  await runTool(FFMPEG, muxAllArgs(input, format, out), o);
}

/** Segment length of the HLS package (seconds). */
export const HLS_SEGMENT_SEC = 4;
export const HLS_MASTER = 'master.m3u8';

/**
 * The ffmpeg arguments writing, into `dir`, the video playlist (v.m3u8) and one audio playlist per track
 * (a0.m3u8, a1.m3u8, ...) with their MPEG-TS segments; the video is copied.
 */
export function hlsMediaArgs(input: DeliverableInput, dir: string): string[] {
  const args = [...FFMPEG_BASE, '-i', input.video];
  const audioInputs: number[] = [];
  let next = 1;
  for (const t of input.tracks) {
    if (t.audio === input.video) audioInputs.push(0);
    else {
      args.push('-i', t.audio);
      audioInputs.push(next++);
    }
  }
  args.push('-map', '0:v:0');
  audioInputs.forEach((i) => args.push('-map', `${i}:a:0`));
  args.push('-c:v', 'copy');
  input.tracks.forEach((t, i) => args.push(`-c:a:${i}`, ...(t.audioIsAac ? ['copy'] : ['aac', `-b:a:${i}`, '192k'])));
  // %v is the stream's name: "v" for the video, "a0".. for the audio renditions.
  const map = ['v:0,agroup:aud,name:v', ...input.tracks.map((_, i) => `a:${i},agroup:aud,name:a${i}`)].join(' ');
  args.push(
    '-f', 'hls', '-hls_time', String(HLS_SEGMENT_SEC), '-hls_playlist_type', 'vod', '-hls_flags', 'independent_segments',
    '-hls_segment_filename', join(dir, '%v_%03d.ts'), '-master_pl_name', 'ffmpeg-master.m3u8', '-var_stream_map', map,
    join(dir, '%v.m3u8'),
  );
  return args;
}

/** The ffmpeg arguments turning one SRT into a WebVTT playlist `s<i>.m3u8` with one segment in `dir`. */
export function hlsSubtitleArgs(srt: string, i: number, dir: string): string[] {
  return [
    ...FFMPEG_BASE, '-i', srt, '-c:s', 'webvtt', '-f', 'segment', '-segment_time', '100000', '-segment_format', 'webvtt',
    '-segment_list_type', 'm3u8', '-segment_list', join(dir, `s${i}.m3u8`), join(dir, `s${i}_%d.vtt`),
  ];
}

const quoted = (s: string) => `"${s.replace(/["\r\n]/g, '')}"`;

/** The master playlist: one audio and one subtitle rendition per language, around ffmpeg's variant line. */
export function masterPlaylist(input: DeliverableInput, streamInf: string, subtitleTracks: number[]): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:6', '#EXT-X-INDEPENDENT-SEGMENTS'];
  input.tracks.forEach((t, i) => {
    const def = i === input.defaultTrack ? 'YES' : 'NO';
    lines.push(
      `#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME=${quoted(titleOf(t))},LANGUAGE=${quoted(t.lang)},DEFAULT=${def},AUTOSELECT=YES,URI="a${i}.m3u8"`,
    );
  });
  for (const i of subtitleTracks) {
    const t = input.tracks[i]!;
    lines.push(
      `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME=${quoted(titleOf(t))},LANGUAGE=${quoted(t.lang)},DEFAULT=NO,AUTOSELECT=NO,URI="s${i}.m3u8"`,
    );
  }
  const inf = streamInf.replace(/,?AUDIO="[^"]*"/, '').replace(/,?SUBTITLES="[^"]*"/, '');
  lines.push(`${inf},AUDIO="aud"${subtitleTracks.length ? ',SUBTITLES="subs"' : ''}`, 'v.m3u8', '');
  return lines.join('\n');
}

/** Writes the whole HLS package into `dir` (empty folder); answers the file names written. */
export async function writeHlsPackage(input: DeliverableInput, dir: string, o: OpOptions = {}): Promise<void> {
  await runTool(FFMPEG, hlsMediaArgs(input, dir), o);
  const subtitleTracks: number[] = [];
  for (const [i, t] of input.tracks.entries()) {
    if (!t.srt) continue;
    await runTool(FFMPEG, hlsSubtitleArgs(t.srt, i, dir), o);
    subtitleTracks.push(i);
  }
  const ffMaster = readFileSync(join(dir, 'ffmpeg-master.m3u8'), 'utf8');
  const streamInf = ffMaster.split('\n').find((l) => l.startsWith('#EXT-X-STREAM-INF:'));
  if (!streamInf) throw new Error('ffmpeg wrote no variant stream');
  writeFileSync(join(dir, HLS_MASTER), masterPlaylist(input, streamInf.trim(), subtitleTracks));
}
