// The media layer on real files: ffprobe, extraction, cover, mixing, muxing, burned subtitles,
// rubberband, sample-exact clip placement, the process runner and yt-dlp against a local server.
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandError, MediaError, isAbortError } from '../../../server/media/errors';
import {
  burnSubtitles,
  encodeAudio,
  extractMonoWav,
  extractStereoWav,
  makeCover,
  makeTestVideo,
  mixVoiceAndBackground,
  muxVideo,
  placeClips,
  sequenceClips,
  synthAudio,
  timeStretch,
  trimWithFade,
} from '../../../server/media/ffmpeg';
import { FFMPEG, parseIntegratedLoudness } from '../../../server/media/args';
import { checkLinkUrl, fetchLink, probeLink, readableYtDlpError } from '../../../server/media/link';
import { isPublicAddress } from '../../../server/net/addresses';
import { probe } from '../../../server/media/probe';
import { run } from '../../../server/media/run';
import { toSrt } from '../../../server/media/subtitles';
import { readWav, readWavInfo, wavDurationSec, WavReader } from '../../../server/media/wav';
import {
  makeEmptyFile,
  makeSpeechTrack,
  makeSpeechVideo,
  makeTextFileAsMp4,
  makeTruncatedMp4,
  makeVideoNoAudio,
  tempDir,
} from '../../fixtures/media';

async function mediaError(p: Promise<unknown>): Promise<MediaError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(MediaError);
    return e as MediaError;
  }
  throw new Error('expected a MediaError');
}

function rms(x: Float32Array, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / Math.max(1, to - from));
}

let video: string;
let speechSec: number;
beforeAll(async () => {
  video = await makeSpeechVideo({ seconds: 6 });
  speechSec = (await makeSpeechTrack({ seconds: 6 })).durationSec;
});

describe('probe', () => {
  it('reads a good video', async () => {
    const p = await probe(video);
    expect(p.hasAudio).toBe(true);
    expect(p.hasVideo).toBe(true);
    expect(p.width).toBe(320);
    expect(p.height).toBe(240);
    expect(p.fps).toBe(25);
    expect(p.videoCodec).toBe('h264');
    expect(p.audioCodec).toBe('aac');
    expect(p.durationSec).toBeGreaterThan(speechSec - 0.1);
    expect(p.durationSec).toBeLessThan(speechSec + 0.1);
    expect(p.sizeBytes).toBe(statSync(video).size);
    expect(p.formatName).toContain('mp4');
  });
  it('reports a video without audio', async () => {
    const p = await probe(await makeVideoNoAudio({ seconds: 2 }));
    expect(p.hasAudio).toBe(false);
    expect(p.hasVideo).toBe(true);
    expect(p.durationSec).toBeCloseTo(2, 1);
  });
  it('rejects a text file named .mp4, a truncated mp4 and a 0-byte file as corrupt', async () => {
    expect((await mediaError(probe(makeTextFileAsMp4()))).code).toBe('corrupt');
    expect((await mediaError(probe(await makeTruncatedMp4()))).code).toBe('corrupt');
    const empty = await mediaError(probe(makeEmptyFile()));
    expect(empty.code).toBe('corrupt');
    expect(empty.message).toMatch(/empty/);
  });
  it('reports a missing file', async () => {
    expect((await mediaError(probe('/nonexistent/file.mp4'))).code).toBe('not_found');
  });
});

describe('extraction', () => {
  it('mono 16 kHz PCM with the video duration and a canonical header', async () => {
    const out = join(tempDir(), 'mono.wav');
    await extractMonoWav(video, out);
    const info = readWavInfo(out);
    expect(info).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16, format: 1, dataOffset: 44 });
    expect(info.durationSec).toBeGreaterThan(speechSec - 0.1);
    expect(info.durationSec).toBeLessThan(speechSec + 0.1);
    // real speech, not silence
    expect(rms(readWav(out).channelData[0]!)).toBeGreaterThan(0.01);
  });
  it('is deterministic (byte-identical reruns)', async () => {
    const a = join(tempDir(), 'a.wav');
    const b = join(tempDir(), 'b.wav');
    await extractMonoWav(video, a);
    await extractMonoWav(video, b);
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
  });
  it('stereo 48 kHz', async () => {
    const out = join(tempDir(), 'st.wav');
    await extractStereoWav(video, out);
    expect(readWavInfo(out)).toMatchObject({ sampleRate: 48000, channels: 2 });
  });
  it('no_audio when the video has no audio stream', async () => {
    const e = await mediaError(extractMonoWav(await makeVideoNoAudio({ seconds: 2 }), join(tempDir(), 'x.wav')));
    expect(e.code).toBe('no_audio');
  });
});

describe('cover', () => {
  it('writes a JPEG frame', async () => {
    const out = join(tempDir(), 'cover.jpg');
    await makeCover(video, out);
    const buf = readFileSync(out);
    expect(buf[0]).toBe(0xff);
    expect(buf[1]).toBe(0xd8);
    const p = await probe(out);
    expect(p.width).toBe(320);
    expect(p.height).toBe(240);
  });
});

describe('mix, mux, subtitles', () => {
  let voice: string;
  let background: string;
  beforeAll(async () => {
    const d = tempDir();
    voice = join(d, 'voice.wav');
    background = join(d, 'bg.wav');
    await extractMonoWav(video, voice, { sampleRate: 48000 });
    await synthAudio(background, { seconds: speechSec, source: 'anoisesrc=color=pink:amplitude=0.05:seed=7', channels: 2 });
  });

  /** Integrated loudness (LUFS) and true peak (dBTP) of a file, measured by ffmpeg's ebur128. */
  async function loudnessOf(path: string): Promise<{ I: number; peak: number }> {
    const r = await run(FFMPEG, ['-nostdin', '-hide_banner', '-nostats', '-loglevel', 'info', '-i', path, '-af', 'ebur128=peak=true:framelog=verbose', '-f', 'null', '-']);
    const peak = /True peak:\s*Peak:\s*(-?[\d.]+|-inf) dBFS/.exec(r.stderr.slice(r.stderr.lastIndexOf('Summary:')));
    return { I: parseIntegratedLoudness(r.stderr)!, peak: Number(peak?.[1]) };
  }

  it('mixes voice and background to the exact length, at -16 LUFS with the peaks limited', async () => {
    const out = join(tempDir(), 'mix.wav');
    const r = await mixVoiceAndBackground({ voice, background, out, durationSec: 5 });
    const w = readWav(out);
    expect(w.sampleRate).toBe(48000);
    expect(w.channels).toBe(2);
    expect(w.frames).toBe(5 * 48000);
    expect(r.measuredLufs).toBeLessThan(-16); // the quiet inputs are turned up
    expect(r.gainDb).toBeGreaterThan(0);
    const l = await loudnessOf(out);
    expect(Math.abs(l.I - -16)).toBeLessThan(1);
    expect(l.peak).toBeLessThan(-0.5);
  });

  it('turns a loud mix down to -16 LUFS (AAC, fast coder)', async () => {
    const d = tempDir();
    const loud = join(d, 'loud.wav');
    await synthAudio(loud, { seconds: 4, source: 'anoisesrc=color=pink:amplitude=0.9:seed=3', channels: 2 });
    const out = join(d, 'mix.m4a');
    const r = await mixVoiceAndBackground({ voice, background: loud, out, durationSec: 4 });
    expect(r.gainDb).toBeLessThan(0);
    const l = await loudnessOf(out);
    expect(Math.abs(l.I - -16)).toBeLessThan(1);
    expect(l.peak).toBeLessThan(-0.5);
    expect((await probe(out)).audioCodec).toBe('aac');
  });

  it('muxes the mix by copying its AAC packets: the video keeps its duration', async () => {
    const d = tempDir();
    const src = await probe(video);
    const m4a = join(d, 'mix.m4a');
    await mixVoiceAndBackground({ voice, background, out: m4a, durationSec: src.durationSec });
    const out = join(d, 'dub.mp4');
    const p = await muxVideo({ video, audio: m4a, out });
    expect(p.audioCodec).toBe('aac');
    expect(Math.abs(p.durationSec - src.durationSec)).toBeLessThan(0.05);
    // the audio packets are the mix's own (no second encode): the same bytes
    const packets = async (f: string) => (await run(FFMPEG, ['-nostdin', '-loglevel', 'error', '-i', f, '-map', '0:a:0', '-c', 'copy', '-f', 'adts', '-'])).stdout;
    expect(await packets(out)).toBe(await packets(m4a));
  });

  it('muxes new audio keeping duration and frame rate (stream copy of H.264)', async () => {
    const out = join(tempDir(), 'dub.mp4');
    const src = await probe(video);
    const p = await muxVideo({ video, audio: voice, out });
    expect(p.videoCodec).toBe('h264');
    expect(p.audioCodec).toBe('aac');
    expect(p.fps).toBe(src.fps);
    expect(Math.abs(p.durationSec - src.durationSec)).toBeLessThan(0.05);
  });

  it('re-encodes with libx264 when asked or needed, same duration and fps (30 fps source)', async () => {
    const d = tempDir();
    const src30 = join(d, 'src30.mp4');
    await makeTestVideo({ out: src30, seconds: 3, fps: 30, width: 322, height: 180, audio: 'silence' });
    const short = join(d, 'short.wav');
    await synthAudio(short, { seconds: 1.5, source: 'sine=frequency=300' });
    const out = join(d, 'dub30.mp4');
    const src = await probe(src30);
    const p = await muxVideo({ video: src30, audio: short, out, forceReencode: true });
    expect(p.fps).toBe(30);
    expect(p.videoCodec).toBe('h264');
    expect(p.width).toBe(322);
    expect(Math.abs(p.durationSec - src.durationSec)).toBeLessThan(0.05);
  });

  it('burns subtitles into the picture', async () => {
    const d = tempDir("sub's, dir ");
    const srt = join(d, 'subs: 1.srt');
    writeFileSync(srt, toSrt([{ start: 0, end: 5, text: 'HELLO SUBTITLES' }]));
    const out = join(d, 'burned.mp4');
    await burnSubtitles({ video, srt, out, fontSize: 28 });
    const p = await probe(out);
    expect(p.hasAudio).toBe(true);
    expect(p.videoCodec).toBe('h264');
    // the picture changed where the text is drawn
    const a = join(d, 'a.jpg');
    const b = join(d, 'b.jpg');
    await makeCover(video, a, { atSec: 1 });
    await makeCover(out, b, { atSec: 1 });
    expect(readFileSync(a).equals(readFileSync(b))).toBe(false);
  });
});

describe('rubberband and trimming', () => {
  it('time-stretches by the tempo factor', async () => {
    const track = await makeSpeechTrack({ seconds: 6 });
    const d0 = wavDurationSec(track.wav);
    const out = join(tempDir(), 'fast.wav');
    const d1 = await timeStretch(track.wav, out, 1.25);
    expect(d1).toBeCloseTo(d0 / 1.25, 1);
    const slow = join(tempDir(), 'slow.wav');
    expect(await timeStretch(track.wav, slow, 0.85)).toBeCloseTo(d0 / 0.85, 1);
  });
  it('trims with a fade to the exact length', async () => {
    const out = join(tempDir(), 'trim.wav');
    const d = await trimWithFade((await makeSpeechTrack({ seconds: 6 })).wav, out, 1.234, { fadeSec: 0.05 });
    expect(d).toBeCloseTo(1.234, 3);
    const x = readWav(out).channelData[0]!;
    expect(Math.abs(x[x.length - 1]!)).toBeLessThan(0.01);
  });
});

describe('placeClips', () => {
  it('places clips at their offsets on a track of exact length (to the sample)', async () => {
    const d = tempDir();
    const tone = join(d, 'tone.wav');
    await synthAudio(tone, { seconds: 0.3, source: 'sine=frequency=1000:sample_rate=22050', sampleRate: 22050 });
    const out = join(d, 'placed.wav');
    const offsets = [0.5, 1.2345, 2.9];
    await placeClips(offsets.map((offsetSec) => ({ path: tone, offsetSec })), 4.321, out, { sampleRate: 48000 });
    const w = readWav(out);
    expect(w.frames).toBe(Math.round(4.321 * 48000));
    const x = w.channelData[0]!;
    for (const off of offsets) {
      // first non-silent sample at or after (offset - 10 ms)
      let i = Math.floor((off - 0.01) * 48000);
      while (i < x.length && Math.abs(x[i]!) < 1e-3) i++;
      expect(Math.abs(i / 48000 - off)).toBeLessThan(0.001);
    }
    // silence between clips
    expect(rms(x, Math.round(0.85 * 48000), Math.round(1.2 * 48000))).toBeLessThan(1e-4);
  });
  it('handles more clips than one ffmpeg call takes', async () => {
    const d = tempDir();
    const tone = join(d, 'tick.wav');
    await synthAudio(tone, { seconds: 0.02, source: 'sine=frequency=800', sampleRate: 16000 });
    const clips = Array.from({ length: 70 }, (_, i) => ({ path: tone, offsetSec: i * 0.05 }));
    const out = join(d, 'many.wav');
    await placeClips(clips, 3.6, out, { sampleRate: 16000 });
    const w = readWav(out);
    expect(w.frames).toBe(3.6 * 16000);
    expect(rms(w.channelData[0]!, Math.round(3.45 * 16000), Math.round(3.47 * 16000))).toBeGreaterThan(0.05);
  });
});

describe('sequenceClips (the voice track in linear time)', () => {
  async function tones(d: string): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < 4; i++) {
      const p = join(d, `t${i}.wav`);
      await synthAudio(p, { seconds: 0.21 + i * 0.07, source: `sine=frequency=${300 + 170 * i}:sample_rate=22050`, sampleRate: 22050 });
      out.push(p);
    }
    return out;
  }

  it('gives the bytes placeClips gives, batches included (more clips than one ffmpeg call takes)', async () => {
    const d = tempDir();
    const t = await tones(d);
    // unsorted, one at 0, one cut by the end, one past it, more clips than one ffmpeg call takes
    const clips = Array.from({ length: 60 }, (_, k) => ({ path: t[k % 4]!, offsetSec: ((k * 37) % 60) * 0.5 + (k % 3) * 0.01234 }));
    clips.push({ path: t[3]!, offsetSec: 30.3 }, { path: t[1]!, offsetSec: 31 });
    const a = join(d, 'placed.wav');
    const b = join(d, 'sequenced.wav');
    await placeClips(clips, 30.5, a, { sampleRate: 48000, channels: 1 });
    await sequenceClips(clips, 30.5, b, { sampleRate: 48000, channels: 1 });
    expect(readWavInfo(b).frames).toBe(30.5 * 48000);
    expect(readFileSync(b).equals(readFileSync(a))).toBe(true);
  });

  it('fails on a clip it cannot read, in either of the batches resampled at once, and leaves no temporary folder', async () => {
    const d = tempDir();
    const t = await tones(d);
    const bad = join(d, 'bad.wav');
    writeFileSync(bad, 'not a wav');
    for (const at of [3, 50]) {
      const clips = Array.from({ length: 60 }, (_, k) => ({ path: k === at ? bad : t[k % 4]!, offsetSec: k * 0.5 }));
      const dir = join(d, `out-${at}`);
      mkdirSync(dir);
      await expect(sequenceClips(clips, 30.5, join(dir, 'track.wav'), { sampleRate: 48000 })).rejects.toThrow();
      expect(readdirSync(dir).filter((f) => f.startsWith('.seq-'))).toEqual([]);
    }
  });

  it('sums clips that overlap, like placeClips (within one step of 16-bit rounding)', async () => {
    const d = tempDir();
    const t = await tones(d);
    const clips = [{ path: t[3]!, offsetSec: 0.1 }, { path: t[1]!, offsetSec: 0.2 }, { path: t[0]!, offsetSec: 0.8 }];
    const a = join(d, 'placed.wav');
    const b = join(d, 'sequenced.wav');
    await placeClips(clips, 1.5, a, { sampleRate: 48000 });
    await sequenceClips(clips, 1.5, b, { sampleRate: 48000 });
    const x = readWav(a).channelData[0]!;
    const y = readWav(b).channelData[0]!;
    expect(y.length).toBe(x.length);
    let worst = 0;
    for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i]! - y[i]!));
    expect(worst).toBeLessThanOrEqual(1.5 / 32768);
    expect(rms(y, Math.round(0.2 * 48000), Math.round(0.3 * 48000))).toBeGreaterThan(0.1);
  });

  it('a silent track when there is no clip; the voice-only encode equals the former one', async () => {
    const d = tempDir();
    const silent = join(d, 'silent.wav');
    await sequenceClips([], 2, silent, { sampleRate: 48000 });
    const w = readWav(silent);
    expect(w.frames).toBe(96000);
    expect(rms(w.channelData[0]!)).toBe(0);
    // the voice-only AAC: encoding the track directly gives the bytes of placing it alone (before)
    const t = await tones(d);
    const track = join(d, 'track.wav');
    await sequenceClips([{ path: t[2]!, offsetSec: 0.3 }], 2, track, { sampleRate: 48000 });
    const before = join(d, 'before.m4a');
    const now = join(d, 'now.m4a');
    await placeClips([{ path: track, offsetSec: 0 }], 2, before, { sampleRate: 48000, channels: 1 });
    await encodeAudio(track, now, { durationSec: 2, sampleRate: 48000, channels: 1 });
    expect(readFileSync(now).equals(readFileSync(before))).toBe(true);
  });
});

describe('WAV in pieces', () => {
  it('reads any range of a WAV as the whole-file reader does', async () => {
    const d = tempDir();
    const st = join(d, 'st.wav');
    await synthAudio(st, { seconds: 1, source: 'anoisesrc=seed=5:amplitude=0.5', sampleRate: 16000, channels: 2 });
    const whole = readWav(st);
    const r = new WavReader(st);
    try {
      const part = r.readMono(1234, 5000);
      expect(part.length).toBe(5000);
      for (let i = 0; i < part.length; i += 97) expect(part[i]).toBe(Math.fround((whole.channelData[0]![1234 + i]! + whole.channelData[1]![1234 + i]!) / 2));
      expect(r.readMono(15990, 100).length).toBe(10);
      expect(r.readMono(20000, 100).length).toBe(0);
    } finally {
      r.close();
    }
  });
});

describe('run', () => {
  it('rejects with the exit status and stderr tail', async () => {
    try {
      await run('ffmpeg', ['-hide_banner', '-i', '/nonexistent.wav', join(tempDir(), 'x.wav')]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CommandError);
      const c = e as CommandError;
      expect(c.reason).toBe('exit');
      expect(c.exitCode).not.toBe(0);
      expect(c.message).toMatch(/ffmpeg failed \(exit \d+\): .*No such file or directory/);
    }
  });
  it('names a missing tool', async () => {
    await expect(run('definitely-not-a-tool', [])).rejects.toThrow(/not installed/);
  });
  it('kills on timeout and on abort', async () => {
    await expect(run('sleep', ['5'], { timeoutMs: 100 })).rejects.toMatchObject({ reason: 'timeout' });
    const ac = new AbortController();
    const p = run('sleep', ['5'], { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const e = await p.catch((x: unknown) => x);
    expect(isAbortError(e)).toBe(true);
  });
  it('feeds stdin and returns stdout', async () => {
    expect((await run('cat', [], { input: 'hello' })).stdout).toBe('hello');
  });
});

describe('links (yt-dlp against a local HTTP server)', () => {
  let server: Server;
  let internal: Server;
  let base: string;
  let port: number;
  let internalHits = 0;
  let internalPort: number;
  /** The test server stands for a public host: its port is allowed, every other loopback port is private. */
  let allowAddress: (ip: string, p: number) => boolean;
  beforeAll(async () => {
    internal = createServer((_req, res) => {
      internalHits++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('internal secret');
    });
    await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
    internalPort = (internal.address() as AddressInfo).port;
    server = createServer((req, res) => {
      if (req.url === '/clip.mp4') {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(statSync(video).size) });
        createReadStream(video).pipe(res);
      } else if (req.url === '/to-internal.mp4') {
        res.writeHead(302, { location: `http://127.0.0.1:${internalPort}/clip.mp4` });
        res.end();
      } else if (req.url === '/to-mapped.mp4') {
        res.writeHead(302, { location: `http://[::ffff:7f00:1]:${internalPort}/clip.mp4` });
        res.end();
      } else if (req.url === '/to-metadata.mp4') {
        res.writeHead(302, { location: `http://[::ffff:a9fe:a9fe]:${internalPort}/latest/meta-data/` });
        res.end();
      } else if (req.url === '/to-nat64.mp4') {
        res.writeHead(302, { location: `http://[64:ff9b::7f00:1]:${internalPort}/clip.mp4` });
        res.end();
      } else if (req.url === '/to-name.mp4') {
        res.writeHead(302, { location: `http://intranet.example:${internalPort}/clip.mp4` });
        res.end();
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    allowAddress = (_ip, p) => p === port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await new Promise<void>((r) => internal.close(() => r()));
  });

  it('refuses a link to a private address, and a redirect into one, through the egress guard', async () => {
    // Default guard: public addresses only, so the loopback server itself is refused.
    const direct = await mediaError(fetchLink(`${base}/clip.mp4`, tempDir('dl-'), { timeoutMs: 60_000 }));
    expect(direct.code).toBe('forbidden_link');
    expect(direct.message).toBe(`Could not download the video from this link: it leads to a private network address (127.0.0.1:${port})`);
    // A permitted host that redirects to an internal one: the redirect is refused, the internal server never hit.
    const dir = tempDir('dl-');
    const redirected = await mediaError(fetchLink(`${base}/to-internal.mp4`, dir, { timeoutMs: 60_000, allowAddress }));
    expect(redirected.code).toBe('forbidden_link');
    expect(redirected.message).toMatch(/it leads to a private network address \(127\.0\.0\.1:\d+\)$/);
    // A redirect to a name that resolves to a private address: refused the same way (resolved by the guard).
    const named = await mediaError(
      fetchLink(`${base}/to-name.mp4`, dir, { timeoutMs: 60_000, allowAddress, lookup: async (h) => (h === 'intranet.example' ? ['127.0.0.1'] : []) }),
    );
    expect(named.message).toMatch(/it leads to a private network address \(intranet\.example:\d+\)$/);
    expect(internalHits).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
    const probed = await probeLink(`${base}/to-internal.mp4`, { timeoutMs: 60_000, allowAddress }).catch((e: unknown) => e);
    expect(probed).toMatchObject({ code: 'forbidden_link', message: expect.stringMatching(/^Could not read the video from this link: it leads to a private network address/) });
    expect(internalHits).toBe(0);
  });
  it('refuses a redirect to an IPv4-mapped or NAT64 form of a loopback or metadata address (the default check)', async () => {
    // The test server's port stands for a public host; every other target goes through the real check.
    const allowServer = (ip: string, p: number) => p === port || isPublicAddress(ip);
    const dir = tempDir('dl-');
    for (const [path, target] of [
      ['/to-mapped.mp4', '[::ffff:7f00:1]'],
      ['/to-metadata.mp4', '[::ffff:a9fe:a9fe]'],
      ['/to-nat64.mp4', '[64:ff9b::7f00:1]'],
    ]) {
      const e = await mediaError(fetchLink(`${base}${path}`, dir, { timeoutMs: 60_000, allowAddress: allowServer }));
      expect(e.code, path).toBe('forbidden_link');
      expect(e.message, path).toBe(`Could not download the video from this link: it leads to a private network address (${target}:${internalPort})`);
    }
    expect(internalHits).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
  it('downloads a video', async () => {
    const dir = tempDir('dl-');
    const path = await fetchLink(`${base}/clip.mp4`, dir, { maxDurationSec: 600, timeoutMs: 60_000, allowAddress });
    expect(existsSync(path)).toBe(true);
    expect(path.startsWith(dir)).toBe(true);
    const p = await probe(path);
    expect(p.hasVideo && p.hasAudio).toBe(true);
  });
  it('refuses a video longer than allowed', async () => {
    const e = await mediaError(fetchLink(`${base}/clip.mp4`, tempDir('dl-'), { maxDurationSec: 2, timeoutMs: 60_000, allowAddress }));
    expect(e.code).toBe('forbidden_link');
    expect(e.message).toMatch(/longer than the allowed 2 s/);
  });
  it('fails with forbidden_link and a readable message on a dead link', async () => {
    const e = await mediaError(fetchLink(`${base}/missing.mp4`, tempDir('dl-'), { timeoutMs: 60_000, allowAddress }));
    expect(e.code).toBe('forbidden_link');
    expect(e.message).toMatch(/HTTP Error 404/);
    expect(e.message).not.toMatch(/please report/);
  });
  it('refuses non-http links up front', async () => {
    expect(() => checkLinkUrl('file:///etc/passwd')).toThrow(MediaError);
    expect(() => checkLinkUrl('not a url')).toThrow(/valid URL/);
    expect((await mediaError(fetchLink('ftp://x/y', tempDir()))).code).toBe('forbidden_link');
  });
  it('probes a link', async () => {
    const info = await probeLink(`${base}/clip.mp4`, { timeoutMs: 60_000, allowAddress });
    expect(info.id).toBe('clip');
    expect(info.type).toBe('video');
    await expect(probeLink(`${base}/missing.mp4`, { timeoutMs: 60_000, allowAddress })).rejects.toMatchObject({ code: 'forbidden_link' });
  });
  it('readable errors', () => {
    expect(readableYtDlpError('[youtube] abc: Downloading\nERROR: [youtube] abc: Private video. Sign in (caused by x); please report this issue on ...')).toBe(
      'Private video. Sign in',
    );
  });
});
