// Pure argument builders and the ffprobe parser, tested as data.
import { describe, expect, it } from 'vitest';
import {
  audioCodecArgs,
  burnSubtitlesArgs,
  coverArgs,
  encodeAudioArgs,
  escapeFilterValue,
  extractMonoWavArgs,
  extractStereoWavArgs,
  ffprobeArgs,
  loudnessGainDb,
  measureMixArgs,
  mixArgs,
  muxArgs,
  num,
  parseIntegratedLoudness,
  placeClipsArgs,
  resampleClipsArgs,
  rubberbandPitchArgs,
  rubberbandTempoArgs,
  testVideoArgs,
  trimFadeArgs,
  ytDlpFetchArgs,
  ytDlpProbeArgs,
} from '../../../server/media/args';
import { MediaError } from '../../../server/media/errors';
import { parseProbe } from '../../../server/media/probe';

const after = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

describe('num', () => {
  it('prints fixed decimals without exponent or trailing zeros', () => {
    expect(num(1.5)).toBe('1.5');
    expect(num(2)).toBe('2');
    expect(num(1e-7)).toBe('0');
    expect(num(12.3456789, 3)).toBe('12.346');
    expect(() => num(NaN)).toThrow();
  });
});

describe('escapeFilterValue', () => {
  it('quotes and escapes for both filtergraph levels', () => {
    expect(escapeFilterValue('/tmp/a.srt')).toBe("\\'/tmp/a.srt\\'");
    // a quote inside: close, escaped quote, reopen; then every special char backslashed once more
    expect(escapeFilterValue("it's")).toBe("\\'it\\'\\\\\\'\\'s\\'");
    expect(escapeFilterValue('a,b;c[d]')).toBe("\\'a\\,b\\;c\\[d\\]\\'");
    expect(escapeFilterValue('C:x')).toBe("\\'C:x\\'");
  });
});

describe('ffprobe / extraction / cover', () => {
  it('ffprobe asks for JSON format and streams', () => {
    expect(ffprobeArgs('/in.mp4')).toEqual(['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', '/in.mp4']);
  });
  it('mono 16 kHz PCM WAV from the first audio stream, deterministic header', () => {
    const a = extractMonoWavArgs('/in.mp4', '/out.wav');
    expect(after(a, '-i')).toBe('/in.mp4');
    expect(after(a, '-map')).toBe('0:a:0');
    expect(after(a, '-ac')).toBe('1');
    expect(after(a, '-ar')).toBe('16000');
    expect(after(a, '-c:a')).toBe('pcm_s16le');
    expect(a).toContain('+bitexact');
    expect(a.slice(-3)).toEqual(['-f', 'wav', '/out.wav']);
    expect(a).toContain('-nostdin');
    expect(a).toContain('-y');
  });
  it('stereo full-quality WAV', () => {
    const a = extractStereoWavArgs('/in.mkv', '/s.wav', { sampleRate: 44100 });
    expect(after(a, '-ac')).toBe('2');
    expect(after(a, '-ar')).toBe('44100');
    expect(after(extractStereoWavArgs('/in', '/o.wav'), '-ar')).toBe('48000');
  });
  it('cover: one frame at the given time, scaled, jpeg quality', () => {
    const a = coverArgs('/v.mp4', '/c.jpg', { atSec: 1.25, maxWidth: 640 });
    expect(after(a, '-ss')).toBe('1.25');
    expect(a.indexOf('-ss')).toBeLessThan(a.indexOf('-i'));
    expect(after(a, '-frames:v')).toBe('1');
    expect(after(a, '-vf')).toBe("scale='min(640,iw)':-2");
    expect(a[a.length - 1]).toBe('/c.jpg');
  });
});

describe('mix and mux', () => {
  it('mix sums voice and background without halving, applies the measured gain under a limiter, fixes the length', () => {
    const a = mixArgs({ voice: '/v.wav', background: '/b.wav', out: '/m.wav', durationSec: 10, backgroundGainDb: -3 }, 4.25);
    const fc = after(a, '-filter_complex')!;
    expect(fc).toContain('amix=inputs=2');
    expect(fc).toContain('normalize=0');
    expect(fc).toContain('volume=4.25dB,alimiter=limit=0.8414:attack=5:release=50:level=disabled:latency=1');
    expect(fc).not.toContain('loudnorm');
    expect(fc).toContain('volume=-3dB');
    expect(fc).toContain('atrim=end_sample=480000');
    expect(after(a, '-c:a')).toBe('pcm_s16le');
    const noLn = after(mixArgs({ voice: '/v', background: '/b', out: '/m.m4a', loudness: null }), '-filter_complex')!;
    expect(noLn).not.toContain('alimiter');
    expect(audioCodecArgs('/x.m4a')).toEqual(['-c:a', 'aac', '-b:a', '192k']);
    expect(audioCodecArgs('/x.m4a', { fast: true })).toEqual(['-c:a', 'aac', '-aac_coder', 'fast', '-b:a', '192k']);
    expect(mixArgs({ voice: '/v', background: '/b', out: '/m.m4a' }).join(' ')).toContain('-aac_coder fast');
    expect(() => audioCodecArgs('/x.xyz')).toThrow(/unsupported/);
  });
  it('measures the loudness of the plain sum (ebur128 summary, nothing written)', () => {
    const a = measureMixArgs({ voice: '/v.wav', background: '/b.wav', out: '/m.m4a', durationSec: 10 });
    expect(after(a, '-loglevel')).toBe('info');
    expect(after(a, '-filter_complex')).toContain('normalize=0,ebur128=framelog=verbose[out]');
    expect(a.slice(-3)).toEqual(['-f', 'null', '-']);
  });
  it('reads the integrated loudness and turns it into a bounded gain', () => {
    const summary = `[Parsed_ebur128_0 @ 0x1] Summary:\n\n  Integrated loudness:\n    I:         -24.4 LUFS\n    Threshold: -34.5 LUFS\n`;
    expect(parseIntegratedLoudness(summary)).toBe(-24.4);
    expect(parseIntegratedLoudness('  Integrated loudness:\n    I:         -inf LUFS')).toBe(-Infinity);
    expect(parseIntegratedLoudness('nothing')).toBeNull();
    expect(loudnessGainDb(-24.4, -16)).toBeCloseTo(8.4, 6);
    expect(loudnessGainDb(-Infinity, -16)).toBe(0);
    expect(loudnessGainDb(-60, -16)).toBe(30);
    expect(loudnessGainDb(null, -16)).toBe(0);
  });
  it('encodes one audio file padded or cut to the duration', () => {
    const a = encodeAudioArgs('/v.wav', '/v.m4a', { durationSec: 2, sampleRate: 48000, channels: 1 });
    expect(after(a, '-af')).toBe('aresample=48000,aformat=sample_fmts=fltp:channel_layouts=mono,apad=whole_len=96000,atrim=end_sample=96000');
    expect(after(a, '-c:a')).toBe('aac');
  });
  it('mux re-encodes with libx264 veryfast, AAC audio padded and cut to the video duration', () => {
    const a = muxArgs({ video: '/v.mov', audio: '/a.wav', out: '/o.mp4', durationSec: 12.345, copyVideo: false });
    expect(after(a, '-c:v')).toBe('libx264');
    expect(after(a, '-preset')).toBe('veryfast');
    expect(after(a, '-pix_fmt')).toBe('yuv420p');
    expect(after(a, '-c:a')).toBe('aac');
    expect(after(a, '-af')).toBe('apad');
    expect(after(a, '-t')).toBe('12.345');
    expect(a.filter((x) => x === '-map')).toHaveLength(2);
    expect(after(a, '-movflags')).toBe('+faststart');
    expect(a.slice(-3)).toEqual(['-f', 'mp4', '/o.mp4']);
  });
  it('mux copies the encoded audio of the mix', () => {
    const a = muxArgs({ video: '/v.mp4', audio: '/a.m4a', out: '/o.mp4', durationSec: 3, copyVideo: true, copyAudio: true });
    expect(after(a, '-c:a')).toBe('copy');
    expect(a).not.toContain('-af');
    expect(a).not.toContain('-b:a');
  });
  it('mux copies an H.264 stream', () => {
    const a = muxArgs({ video: '/v.mp4', audio: '/a.wav', out: '/o.mp4', durationSec: 3, copyVideo: true });
    expect(after(a, '-c:v')).toBe('copy');
    expect(a).not.toContain('libx264');
  });
  it('burned subtitles: escaped path, forced style, libx264, audio copied', () => {
    const a = burnSubtitlesArgs({ video: '/v.mp4', srt: "/tmp/it's, here.srt", out: '/o.mp4' });
    const vf = after(a, '-vf')!;
    expect(vf.startsWith("subtitles=filename=\\'/tmp/it")).toBe(true);
    expect(vf).toContain('\\,');
    expect(vf).toContain('force_style=');
    expect(after(a, '-c:v')).toBe('libx264');
    expect(after(a, '-c:a')).toBe('copy');
  });
});

describe('rubberband', () => {
  it('tempo and pitch', () => {
    expect(rubberbandTempoArgs('/i.wav', '/o.wav', 1.2)).toEqual(['-q', '--tempo', '1.2', '/i.wav', '/o.wav']);
    expect(rubberbandTempoArgs('/i.wav', '/o.wav', 0.9, { fine: true })).toEqual(['-q', '-3', '--tempo', '0.9', '/i.wav', '/o.wav']);
    expect(() => rubberbandTempoArgs('/i', '/o', 0)).toThrow();
    expect(rubberbandPitchArgs('/i.wav', '/o.wav', 11)).toEqual(['-q', '--pitch', '11', '/i.wav', '/o.wav']);
    expect(rubberbandPitchArgs('/i.wav', '/o.wav', -2, { preserveFormants: true })).toContain('-F');
  });
});

describe('clip placement and trimming', () => {
  it('delays each clip by a whole number of samples onto a silent base of exact length', () => {
    const a = placeClipsArgs(
      [
        { path: '/a.wav', offsetSec: 1.2345 },
        { path: '/b.wav', offsetSec: 0 },
      ],
      10,
      '/t.wav',
      { sampleRate: 48000 },
    );
    expect(a.filter((x) => x === '-i')).toHaveLength(2);
    const fc = after(a, '-filter_complex')!;
    expect(fc).toContain('anullsrc=r=48000:cl=mono,atrim=end_sample=480000[base]');
    expect(fc).toContain('adelay=delays=59256S:all=1[c0]');
    expect(fc).toContain('adelay=delays=0S:all=1[c1]');
    expect(fc).toContain('[base][c0][c1]amix=inputs=3:duration=first:dropout_transition=0:normalize=0,atrim=end_sample=480000[out]');
  });
  it('works with no clips (a silent track)', () => {
    const fc = after(placeClipsArgs([], 2, '/t.wav', { sampleRate: 16000 }), '-filter_complex')!;
    expect(fc).toContain('[base]amix=inputs=1');
    expect(fc).toContain('end_sample=32000');
  });
  it('resamples clips to raw 16-bit PCM pieces, one output per clip, as placeClips converts them', () => {
    const a = resampleClipsArgs([{ path: '/a.wav', out: '/a.raw' }, { path: '/b.wav', out: '/b.raw' }], { sampleRate: 48000 });
    expect(a.filter((x) => x === '-i')).toHaveLength(2);
    expect(after(a, '-filter_complex')).toBe(
      '[0:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=mono[c0];[1:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=mono[c1]',
    );
    expect(a.join(' ')).toContain('-map [c0] -ar 48000 -c:a pcm_s16le -f s16le /a.raw -map [c1] -ar 48000 -c:a pcm_s16le -f s16le /b.raw');
  });
  it('trim with fade', () => {
    const a = trimFadeArgs('/i.wav', '/o.wav', 2.5, 0.05);
    expect(after(a, '-af')).toBe('atrim=end=2.5,afade=t=out:st=2.45:d=0.05');
  });
});

describe('test media', () => {
  it('testsrc2 picture with speech, silence, or no audio', () => {
    const withAudio = testVideoArgs({ out: '/o.mp4', seconds: 5, audio: '/s.wav', width: 640, height: 360 });
    expect(withAudio).toContain('testsrc2=size=640x360:rate=25');
    expect(withAudio).toContain('/s.wav');
    expect(after(withAudio, '-t')).toBe('5');
    const silent = testVideoArgs({ out: '/o.mp4', seconds: 2 });
    expect(silent.join(' ')).toContain('anullsrc=r=48000:cl=stereo');
    const none = testVideoArgs({ out: '/o.mp4', seconds: 2, audio: null });
    expect(none.join(' ')).not.toContain('-c:a');
    expect(none.filter((x) => x === '-map')).toHaveLength(1);
  });
});

describe('yt-dlp', () => {
  it('fetch: one video, best mp4, duration filter, printed final path', () => {
    const a = ytDlpFetchArgs('https://example.com/v', '/dl', { maxDurationSec: 600.9 });
    expect(a).toContain('--no-playlist');
    expect(after(a, '-f')).toBe('bv*[ext=mp4]+ba[ext=m4a]/b[ext=mp4]/bv*+ba/b');
    expect(after(a, '--merge-output-format')).toBe('mp4');
    expect(after(a, '--match-filter')).toBe('duration <=? 600');
    expect(after(a, '-o')).toBe('/dl/source.%(ext)s');
    expect(after(a, '--print')).toBe('after_move:filepath');
    expect(a.slice(-2)).toEqual(['--', 'https://example.com/v']);
  });
  it('probe: JSON only', () => {
    const a = ytDlpProbeArgs('https://youtu.be/x');
    expect(a[0]).toBe('-J');
    expect(a).toContain('--no-playlist');
    expect(a[a.length - 1]).toBe('https://youtu.be/x');
  });
});

describe('parseProbe', () => {
  const video = {
    codec_type: 'video',
    codec_name: 'h264',
    width: 1280,
    height: 720,
    avg_frame_rate: '30000/1001',
    r_frame_rate: '30000/1001',
    pix_fmt: 'yuv420p',
  };
  const audio = { codec_type: 'audio', codec_name: 'aac', sample_rate: '44100', channels: 2 };
  it('a normal video', () => {
    const p = parseProbe(JSON.stringify({ streams: [video, audio], format: { format_name: 'mov,mp4', duration: '12.5', size: '1000' } }));
    expect(p).toMatchObject({
      durationSec: 12.5,
      hasAudio: true,
      hasVideo: true,
      width: 1280,
      height: 720,
      fps: 29.97,
      videoCodec: 'h264',
      audioCodec: 'aac',
      audioSampleRate: 44100,
      audioChannels: 2,
      sizeBytes: 1000,
      formatName: 'mov,mp4',
    });
  });
  it('noAudioStreams', () => {
    const p = parseProbe({ streams: [video], format: { format_name: 'mp4', duration: '3' } }, 77);
    expect(p.hasAudio).toBe(false);
    expect(p.audioCodec).toBeNull();
    expect(p.sizeBytes).toBe(77);
  });
  it('audio with cover art is not a video', () => {
    const p = parseProbe({
      streams: [audio, { ...video, codec_name: 'mjpeg', disposition: { attached_pic: 1 } }],
      format: { format_name: 'mp3', duration: '30' },
    });
    expect(p.hasVideo).toBe(false);
    expect(p.fps).toBeNull();
  });
  it('duration from the streams when the container has none', () => {
    const p = parseProbe({ streams: [{ ...audio, duration: '4.2' }], format: { format_name: 'wav' } });
    expect(p.durationSec).toBe(4.2);
  });
  it('corrupt: no streams, no duration, bad JSON', () => {
    for (const bad of ['{}', 'not json', JSON.stringify({ streams: [], format: {} }), JSON.stringify({ streams: [audio], format: { duration: 'N/A' } })]) {
      let err: unknown;
      try {
        parseProbe(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(MediaError);
      expect((err as MediaError).code).toBe('corrupt');
    }
  });
});
