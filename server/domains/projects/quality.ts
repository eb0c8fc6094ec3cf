// The quality report of a dub (issue 15): made after each generate from the output files themselves (the
// voice-only track, the final soundtrack, the source audio), not from the fitter's plan. Per segment: speed,
// where the dubbed voice was really heard (ended within its slot, overflow, borrowed gap, overlap, drift),
// glossary terms expected and found, ASR confidence; per project: the largest drift, loudness (EBU R128) of the
// output and the source, whether the background was kept, speech coverage, and what needs attention.
import { checkSegmentTerms, type TermEntry } from '../glossaries/check';
import { join } from 'node:path';
import type { QualityIssue, QualityReport, QualitySegment } from '../../../contract/schemas/quality';
import { extractMonoWav, measureLoudness } from '../../media/ffmpeg';
import { wavRmsEnvelopeAsync } from '../../media/wav';
import { projectKey } from '../../storage/index';
import type { Storage } from '../../storage/types';
import type { SegmentRow } from '../transcript/repository';

export const QUALITY_ARTIFACT = 'quality.json';
export const qualityKey = (projectId: string) => projectKey(projectId, QUALITY_ARTIFACT);

/** Analysis frame of the level envelopes, seconds. */
const HOP = 0.02;
/** Thresholds of "needs attention". */
export const LIMITS = {
  overflowSec: 0.25,
  fastSpeech: 1.35,
  slowSpeech: 0.8,
  overlapSec: 0.2,
  driftSec: 0.3,
  asrConfidence: 0.6,
  /** The output's background may be this much quieter than the source's and still count as kept (dB). */
  backgroundDropDb: 15,
} as const;

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const r1 = (x: number) => Math.round(x * 10) / 10;

/** A dictionary entry as stored on the project's glossary (the flags are optional in older rows). */
export type GlossaryTerm = TermEntry;

/**
 * Glossary terms of one segment: the translations expected (their source term occurs in the source text) and
 * those found in the translation, by the dictionary's own check (whole words, do-not-translate terms expected
 * as written, case-sensitive terms compared as written).
 */
export function matchGlossary(src: string, dst: string, terms: readonly GlossaryTerm[]): { expected: string[]; found: string[] } {
  const c = checkSegmentTerms(src, dst, terms.filter((t) => typeof t.source === 'string' && typeof t.target === 'string'));
  const targets = (hits: ReadonlyArray<{ target: string }>) => [...new Set(hits.map((h) => h.target))];
  return { expected: targets(c.expected), found: targets(c.found) };
}

/** Mean word confidence of a segment's recognised words (null when the engine gave none). */
export function asrConfidence(words: SegmentRow['words']): number | null {
  const c = (words ?? []).map((w) => (w as { confidence?: unknown }).confidence).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return c.length ? r3(c.reduce((a, b) => a + b, 0) / c.length) : null;
}

export interface Envelope {
  hopSec: number;
  rms: Float32Array;
}

/** The level above which the voice-only track counts as speaking: relative to its loud frames, with a floor. */
export function voiceThreshold(env: Envelope): number {
  const loud = [...env.rms].filter((x) => x > 1e-4).sort((a, b) => a - b);
  const p95 = loud.length ? loud[Math.floor(loud.length * 0.95)]! : 0;
  return Math.max(0.002, p95 * 0.08);
}

const db = (power: number) => (power > 0 ? r1(10 * Math.log10(power)) : null);

export interface QualityInputs {
  projectId: string;
  generation: number;
  duration: number;
  /** Segments in time order, with their text. */
  segments: readonly Pick<SegmentRow, 'id' | 'start_sec' | 'end_sec' | 'speaker' | 'src_text' | 'dst_text' | 'speed_factor' | 'words'>[];
  glossary: readonly GlossaryTerm[];
  /** Level envelopes (same hop) of the voice-only output, the final soundtrack and the source audio. */
  voice: Envelope;
  output: Envelope | null;
  source: Envelope | null;
  loudnessLufs: number | null;
  sourceLoudnessLufs: number | null;
  now?: Date;
}

/** Pure: the report from the measured envelopes and loudness. */
export function analyseQuality(i: QualityInputs): QualityReport {
  const hop = i.voice.hopSec;
  const thr = voiceThreshold(i.voice);
  const n = i.voice.rms.length;
  const voiced = (f: number) => f >= 0 && f < n && i.voice.rms[f]! >= thr;
  const frame = (t: number) => Math.floor(t / hop + 1e-9);
  const segs = [...i.segments].filter((s) => s.end_sec > s.start_sec).sort((a, b) => a.start_sec - b.start_sec || a.end_sec - b.end_sec);
  // Frames inside any segment's slot, and how many slots cover each (overlap).
  const cover = new Uint8Array(n);
  for (const s of segs) for (let f = Math.max(0, frame(s.start_sec)); f < Math.min(n, frame(s.end_sec)); f++) cover[f] = Math.min(255, cover[f]! + 1);

  const out: QualitySegment[] = segs.map((s, k) => {
    let nextStart = i.duration;
    for (let j = k + 1; j < segs.length; j++) {
      if (segs[j]!.start_sec > s.start_sec) {
        nextStart = segs[j]!.start_sec;
        break;
      }
    }
    // The voice heard from just before the slot up to the next segment's start belongs to this segment.
    const w0 = Math.max(0, frame(s.start_sec - 0.04));
    const w1 = Math.min(n, frame(Math.max(nextStart, Math.min(s.end_sec, i.duration))));
    let first = -1;
    let last = -1;
    for (let f = w0; f < w1; f++) {
      if (voiced(f)) {
        if (first < 0) first = f;
        last = f;
      }
    }
    const heard = first >= 0;
    const dubStart = heard ? r3(first * hop) : null;
    const dubEnd = heard ? r3((last + 1) * hop) : null;
    const overflow = dubEnd === null ? 0 : r3(Math.max(0, dubEnd - s.end_sec));
    const borrowed = r3(Math.min(overflow, Math.max(0, nextStart - s.end_sec)));
    let overlapFrames = 0;
    if (heard) for (let f = first; f <= last; f++) if (voiced(f) && cover[f]! > (f < frame(s.end_sec) && f >= frame(s.start_sec) ? 1 : 0)) overlapFrames++;
    const overlap = r3(overlapFrames * hop);
    const drift = dubStart === null ? null : r3(dubStart - s.start_sec);
    const g = matchGlossary(s.src_text, s.dst_text, i.glossary);
    const conf = asrConfidence(s.words);
    const speed = s.speed_factor === null || s.speed_factor === undefined ? null : r3(s.speed_factor);
    const issues: QualityIssue[] = [];
    const ended = dubEnd === null || dubEnd <= s.end_sec + 0.05;
    if (!ended && overflow > LIMITS.overflowSec) issues.push('overflow');
    if (speed !== null && speed > LIMITS.fastSpeech) issues.push('fast_speech');
    if (speed !== null && speed < LIMITS.slowSpeech) issues.push('slow_speech');
    if (overlap > LIMITS.overlapSec) issues.push('overlap');
    if (drift !== null && Math.abs(drift) > LIMITS.driftSec) issues.push('drift');
    if (!heard && s.dst_text.trim() !== '') issues.push('missing_speech');
    if (g.found.length < g.expected.length) issues.push('glossary');
    if (conf !== null && conf < LIMITS.asrConfidence) issues.push('low_asr_confidence');
    return {
      id: s.id, start: r3(s.start_sec), end: r3(s.end_sec), speaker: s.speaker, speed_factor: speed, dub_start: dubStart, dub_end: dubEnd,
      ended_within_slot: ended, overflow_sec: overflow, borrowed_gap_sec: borrowed, overlap_sec: overlap, drift_sec: drift,
      glossary_expected: g.expected, glossary_found: g.found, asr_confidence: conf, issues,
    };
  });

  // Speech coverage: share of the slots' frames in which the dubbed voice is heard.
  let slotFrames = 0;
  let heardFrames = 0;
  for (let f = 0; f < n; f++) {
    if (!cover[f]) continue;
    slotFrames++;
    if (voiced(f)) heardFrames++;
  }
  // Background: where neither the source speaks (no slot) nor the dub, compare the output's level to the source's.
  let outPow = 0;
  let srcPow = 0;
  let bgFrames = 0;
  if (i.output && i.source) {
    const m = Math.min(n, i.output.rms.length, i.source.rms.length);
    for (let f = 0; f < m; f++) {
      if (cover[f] || voiced(f) || voiced(f - 1) || voiced(f + 1)) continue;
      outPow += i.output.rms[f]! ** 2;
      srcPow += i.source.rms[f]! ** 2;
      bgFrames++;
    }
  }
  const bgOut = bgFrames > 0 ? db(outPow / bgFrames) : null;
  const bgSrc = bgFrames > 0 ? db(srcPow / bgFrames) : null;
  // Nothing to keep (no background in the source, or no moment without speech) counts as kept.
  const kept = bgSrc === null || bgSrc < -60 || (bgOut !== null && bgOut >= bgSrc - LIMITS.backgroundDropDb);
  const finite = (x: number | null) => (x === null || !Number.isFinite(x) ? null : r1(x));
  return {
    project_id: i.projectId,
    generation: i.generation,
    created_at: (i.now ?? new Date()).toISOString(),
    stale: false,
    duration: r3(i.duration),
    max_drift_sec: r3(Math.max(0, ...out.map((s) => Math.abs(s.drift_sec ?? 0)))),
    loudness_lufs: finite(i.loudnessLufs),
    source_loudness_lufs: finite(i.sourceLoudnessLufs),
    background_level_db: bgOut,
    source_background_level_db: bgSrc,
    background_kept: kept,
    speech_coverage: slotFrames ? r3(heardFrames / slotFrames) : 0,
    segments: out,
    attention: out.filter((s) => s.issues.length > 0).map((s) => s.id),
  };
}

export interface QualityFiles {
  /** Voice-only output, final soundtrack, source audio (local paths). */
  voice: string;
  output: string;
  /** The source audio as extracted at ingest (mono 16 kHz WAV) and at full quality (for loudness). */
  source16k: string | null;
  sourceFull: string | null;
  tmp: string;
  signal?: AbortSignal;
}

/** Measures the files (levels, loudness) and analyses them. */
export async function measureQuality(
  files: QualityFiles,
  meta: Omit<QualityInputs, 'voice' | 'output' | 'source' | 'loudnessLufs' | 'sourceLoudnessLufs'>,
): Promise<QualityReport> {
  const o = { signal: files.signal };
  const voiceWav = join(files.tmp, 'quality_voice.wav');
  const outWav = join(files.tmp, 'quality_output.wav');
  await extractMonoWav(files.voice, voiceWav, o);
  await extractMonoWav(files.output, outWav, o);
  const [loud, srcLoud] = await Promise.all([
    measureLoudness(files.output, o),
    files.sourceFull ? measureLoudness(files.sourceFull, o) : Promise.resolve(null),
  ]);
  // Read with pauses for the event loop: the stage runs beside the API (an hour of audio took seconds in one go).
  return analyseQuality({
    ...meta,
    voice: await wavRmsEnvelopeAsync(voiceWav, HOP),
    output: await wavRmsEnvelopeAsync(outWav, HOP),
    source: files.source16k ? await wavRmsEnvelopeAsync(files.source16k, HOP) : null,
    loudnessLufs: loud,
    sourceLoudnessLufs: srcLoud,
  });
}

export async function loadQuality(storage: Storage, projectId: string): Promise<QualityReport | null> {
  const k = qualityKey(projectId);
  if (!(await storage.exists(k))) return null;
  return JSON.parse((await storage.getBuffer(k)).toString('utf8')) as QualityReport;
}

function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : Array.isArray(v) ? v.join('; ') : String(v);
  // A cell a spreadsheet would run as a formula is kept as text.
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const SEGMENT_COLUMNS = [
  'id', 'start', 'end', 'speaker', 'speed_factor', 'dub_start', 'dub_end', 'ended_within_slot', 'overflow_sec', 'borrowed_gap_sec',
  'overlap_sec', 'drift_sec', 'glossary_expected', 'glossary_found', 'asr_confidence', 'issues',
] as const;
const PROJECT_COLUMNS = [
  'project_id', 'generation', 'created_at', 'stale', 'duration', 'max_drift_sec', 'loudness_lufs', 'source_loudness_lufs',
  'background_level_db', 'source_background_level_db', 'background_kept', 'speech_coverage', 'attention',
] as const;

/** The report as CSV: the project's figures (two lines), a blank line, then one line per segment. */
export function qualityCsv(r: QualityReport): string {
  const line = (cells: unknown[]) => cells.map(csvCell).join(',');
  const rows = [
    line([...PROJECT_COLUMNS]),
    line(PROJECT_COLUMNS.map((c) => (c === 'attention' ? r.attention.length : r[c]))),
    '',
    line([...SEGMENT_COLUMNS]),
    ...r.segments.map((s) => line(SEGMENT_COLUMNS.map((c) => s[c]))),
  ];
  return rows.join('\r\n') + '\r\n';
}
