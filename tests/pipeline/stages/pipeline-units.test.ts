// Pure parts of the stage handlers: segmenting speech regions, voice choice per speaker, mapping target
// subtitles to segments, the subtitle cues of a translation, the state machine tables.
import { describe, expect, it } from 'vitest';
import { PROJECT_STATUSES } from '../../../contract/statuses';
import { segmentRegions } from '../../../server/domains/projects/stages/transcribe-segments';
import { translationCues } from '../../../server/domains/projects/stages/burn-subtitles';
import { mapCuesToSegments } from '../../../server/domains/projects/stages/translation';
import { chooseVoices } from '../../../server/domains/projects/stages/voices';
import { charsPerSecond } from '../../../server/domains/projects/stages/rates';
import { InvalidJobError, parseJobData } from '../../../server/domains/projects/pipeline/payload';
import { ON_DONE, STAGES, STAGE_STATUS, stageToResume } from '../../../server/domains/projects/pipeline/stages';
import type { Voice } from '../../../server/engines/types';

describe('segmentRegions', () => {
  it('joins regions closer than the gap and splits long ones', () => {
    expect(segmentRegions([{ start: 0, end: 1 }, { start: 1.2, end: 2 }, { start: 3, end: 4 }])).toEqual([
      { start: 0, end: 2 }, { start: 3, end: 4 },
    ]);
    const long = segmentRegions([{ start: 10, end: 40 }], 15);
    expect(long).toEqual([{ start: 10, end: 25 }, { start: 25, end: 40 }]);
    expect(segmentRegions([{ start: 0, end: 10 }, { start: 10.1, end: 20 }], 15)).toHaveLength(2);
    expect(segmentRegions([{ start: 5, end: 5 }])).toEqual([]);
  });
});

describe('chooseVoices', () => {
  const v = (id: string, gender: 'male' | 'female', pitch: number): Voice => ({ id, name: id, lang: 'es', gender, pitch, engine: 'espeak' });
  const voices = [v('m-low', 'male', 100), v('m-high', 'male', 140), v('f-low', 'female', 180), v('f-high', 'female', 230)];
  const sp = (id: string, gender: 'male' | 'female' | null, pitch: number | null, voice: string | null = null, locked = false) => ({
    id, gender, pitch_hz: pitch, voice_id: voice, voice_locked: locked,
  });
  it('matches gender and the nearest pitch, and gives different speakers different voices', () => {
    const r = chooseVoices([sp('A', 'male', 98), sp('B', 'female', 240), sp('C', 'male', 101)], voices);
    expect(Object.fromEntries(r)).toEqual({ A: 'm-low', B: 'f-high', C: 'm-high' });
  });
  it('keeps a voice a person chose and does not give it to another speaker', () => {
    const r = chooseVoices([sp('A', 'male', 98, 'm-low', true), sp('B', 'male', 99)], voices);
    expect(Object.fromEntries(r)).toEqual({ B: 'm-high' });
  });
  it('falls back to any voice when no voice of that gender exists', () => {
    const r = chooseVoices([sp('A', 'female', 200)], [v('m', 'male', 120)]);
    expect(r.get('A')).toBe('m');
    expect(chooseVoices([sp('A', null, null)], []).size).toBe(0);
  });
});

describe('target subtitles to segments', () => {
  const segs = [{ id: 'a', start_sec: 0, end_sec: 2 }, { id: 'b', start_sec: 3, end_sec: 5 }];
  it('maps 1:1 when counts match a source SRT, else by overlap (several cues join)', () => {
    expect(mapCuesToSegments(segs, [{ start: 9, end: 10, text: 'x' }, { start: 11, end: 12, text: 'y' }], true)).toEqual(new Map([['a', 'x'], ['b', 'y']]));
    const m = mapCuesToSegments(segs, [{ start: 0, end: 1, text: 'Uno' }, { start: 1, end: 2.5, text: 'dos\ntres' }, { start: 3.5, end: 4, text: 'cuatro' }], false);
    expect(m).toEqual(new Map([['a', 'Uno dos tres'], ['b', 'cuatro']]));
  });
});

describe('translation cues', () => {
  it('skip empty texts and keep segment times in order', () => {
    expect(translationCues([
      { start_sec: 3, end_sec: 4, dst_text: 'B' },
      { start_sec: 0, end_sec: 1, dst_text: 'A' },
      { start_sec: 5, end_sec: 6, dst_text: '  ' },
    ])).toEqual([{ start: 0, end: 1, text: 'A' }, { start: 3, end: 4, text: 'B' }]);
  });
  it('lay a long or fast segment out in readable cues (issue 29)', () => {
    const text = 'La familia de Dashwood se había establecido durante mucho tiempo en Sussex. Su finca era grande, y su residencia estaba en Norland Park.';
    const cues = translationCues([{ start_sec: 0, end_sec: 9, dst_text: text }]);
    expect(cues.length).toBeGreaterThan(1);
    for (const c of cues) {
      expect(c.text.split('\n').length).toBeLessThanOrEqual(2);
      for (const l of c.text.split('\n')) expect(l.length).toBeLessThanOrEqual(42);
      expect(c.text.replace(/\n/g, ' ').length / (c.end - c.start)).toBeLessThanOrEqual(17.01);
    }
    expect(cues.map((c) => c.text.replace(/\n/g, ' ')).join(' ')).toBe(text);
  });
});

describe('state machine tables', () => {
  it('resumes every in-flight status with its stage and leaves waiting/final ones alone', () => {
    expect(stageToResume('created')).toBe('ingest');
    expect(stageToResume('uploading')).toBe('ingest');
    expect(stageToResume('uploaded')).toBe('separate_background');
    expect(stageToResume('transcription_started')).toBe('transcription');
    expect(stageToResume('voice_suggest_done')).toBe('translation');
    expect(stageToResume('voiceover_done')).toBe('merging');
    for (const s of ['translation_done', 'merging_done', 'transcript_edited', 'voice_edited', 'failed', 'no_words'] as const) {
      expect(stageToResume(s), s).toBeNull();
    }
    for (const s of PROJECT_STATUSES.filter((x) => x.endsWith('_started') && !x.startsWith('voice_update'))) {
      expect(stageToResume(s), s).not.toBeNull();
    }
  });
  it('chains the analysis up to the translation and the generation up to the merge, without loops', () => {
    const walk = (from: (typeof STAGES)[number]) => {
      const seen: string[] = [];
      for (let s: (typeof STAGES)[number] | null = from; s; s = ON_DONE[s]) {
        expect(seen, `loop at ${s}`).not.toContain(s);
        seen.push(s);
      }
      return seen;
    };
    expect(walk('ingest')).toEqual([
      'ingest', 'separate_background', 'transcribe_segments', 'transcription', 'determine_speakers', 'voice_suggest', 'translation',
    ]);
    expect(walk('voiceover')).toEqual(['voiceover', 'merging']);
    // The subtitle burn is a side task: it neither follows nor changes the project's status.
    expect(walk('burn_subtitles')).toEqual(['burn_subtitles']);
    expect(STAGE_STATUS.burn_subtitles).toBeNull();
    // Every other stage writes its own started/done/failed statuses.
    const written = STAGES.flatMap((s) => { const st = STAGE_STATUS[s]; return st ? [st.started, st.done, st.failed] : []; });
    expect(new Set(written).size).toBe(written.length);
  });
  it("reads a dialect's speech rate from its language", () => {
    expect(charsPerSecond('es-419')).toBe(charsPerSecond('es'));
  });
});

describe('job payloads from the queue', () => {
  const id = '0b6d3c0e-8a52-4c1e-9d55-3f1f3c9e2b10';
  it('parses a payload of this pipeline', () => {
    expect(parseJobData({ projectId: id, stage: 'voiceover' })).toEqual({ projectId: id, stage: 'voiceover' });
  });
  it('refuses payloads that are not a job of this pipeline, naming what is wrong', () => {
    expect(() => parseJobData({ projectId: id, stage: 'lipsync_v9' })).toThrow(/stage is not a pipeline stage/);
    expect(() => parseJobData({ projectId: 42, stage: 'ingest' })).toThrow(InvalidJobError);
    expect(() => parseJobData({ projectId: 'p1', stage: 'ingest' })).toThrow(/projectId is not a project id/);
    expect(() => parseJobData(null)).toThrow(InvalidJobError);
  });
});
