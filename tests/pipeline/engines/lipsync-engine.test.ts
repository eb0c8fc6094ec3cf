// The built-in lip-sync engine on real faces (clips made at test time from face-api's sample photo and
// LibriVox speech): the mouth follows the voice on the output (direction only: the bench prints the
// figures), a video without a face is refused, a face leaving the frame leaves the later frames as they were.
import { describe, expect, it } from 'vitest';
import { createFaceApiEngine } from '../../../server/engines/builtin/face-api';
import { createBuiltinLipsync } from '../../../server/engines/builtin/lipsync/engine';
import { measureMouthSync } from '../../../server/engines/builtin/lipsync/measure';
import { EngineError } from '../../../server/engines/types';
import { readFrames } from '../../../server/media/frames';
import { makeFaceVideo } from '../../fixtures/faces';
import { join } from 'node:path';
import { tempDir } from '../../fixtures/media';

const face = createFaceApiEngine();
const engine = createBuiltinLipsync(face);

async function frames(video: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const f of readFrames(video, { width: 320, height: 240, pixFmt: 'yuv420p', fps: '25' })) out.push(f);
  return out;
}
const meanAbsDiff = (a: Buffer, b: Buffer) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!);
  return s / a.length;
};

describe('built-in lip-sync', () => {
  it('moves the mouth with the dub: the synchrony measured on the output goes up', async () => {
    const clip = await makeFaceVideo('one', 3);
    const out = join(tempDir('ls-'), 'out.mp4');
    const r = await engine.lipsync({ video: clip.video, voice: clip.voice, turns: [{ speaker: 'S', ...clip.speech }], multipleSpeakers: false, outPath: out });
    expect(r).toMatchObject({ engine: 'builtin-lipsync', faces: 1, speakerFaces: { S: 0 } });
    expect(r.framesChanged).toBeGreaterThan(20);
    const before = await measureMouthSync(clip.video, clip.voice, face);
    const after = await measureMouthSync(out, clip.voice, face);
    expect(after.framesWithFace).toBeGreaterThan(60);
    expect(after.correlation).toBeGreaterThan(before.correlation + 0.3);
  }, 600_000);

  it('refuses a video without a face and writes nothing', async () => {
    const clip = await makeFaceVideo('none', 2);
    const out = join(tempDir('ls-'), 'out.mp4');
    const e = await engine.lipsync({ video: clip.video, voice: clip.voice, turns: [{ speaker: 'S', ...clip.speech }], multipleSpeakers: false, outPath: out }).catch((x) => x);
    expect(e).toBeInstanceOf(EngineError);
    expect(e.code).toBe('no_face');
  });

  it('leaves the frames alone once the face has left the picture', async () => {
    const clip = await makeFaceVideo('leaving', 3);
    const out = join(tempDir('ls-'), 'out.mp4');
    const r = await engine.lipsync({ video: clip.video, voice: clip.voice, turns: [{ speaker: 'S', ...clip.speech }], multipleSpeakers: false, outPath: out });
    expect(r.framesChanged).toBeGreaterThan(5);
    const a = await frames(clip.video);
    const b = await frames(out);
    expect(b.length).toBe(a.length);
    // From 2.4 s on the face is gone: only the re-encoding differs.
    for (let f = 60; f < a.length; f++) expect(meanAbsDiff(a[f]!, b[f]!)).toBeLessThan(1.5);
  });
});
