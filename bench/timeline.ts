// Timeline editor benchmark in Debian Chromium: a 3-hour project with 10,000 segments (3 speakers) seeded straight
// into the database of a real in-process server (tests/e2e/timeline-seed.ts). Its source audio is a real 3-hour
// 16 kHz WAV made by ffmpeg (pink noise gated 0.9 s on / 0.18 s off, like speech and pauses), and the peaks are
// computed from it by the server's own pipeline on the first request (timed apart). Then, in Chromium:
//   - open -> timeline interactive: from navigation start until a segment block is mounted, the source waveform
//     has pixels and the main thread is free again (two animation frames and a macrotask later), page loads;
//   - frame times while scrolling the timeline with the wheel (at the opening zoom, at a zoom with ~250 blocks in
//     view, and over the whole video where the lanes are drawn), while dragging a block's edge and a whole block
//     (pointer moves every frame), and the time to the next frame after a drop (the edit reaches the store and list).
// Aims (issue 15): open under 1.5 s, no frame over 50 ms while dragging or scrolling.
// Run directly: node --import tsx bench/timeline.ts   (or `npm run bench timeline`).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { synthAudio } from '../server/media/ffmpeg';
import { ARTIFACTS, launchBrowser } from '../tests/e2e/support';
import { startTimelineServer, type SeedSegment } from '../tests/e2e/timeline-seed';

export const TIMELINE_BENCH_SECONDS = 3 * 3600;
export const TIMELINE_BENCH_SEGMENTS = 10_000;
const AIM_OPEN_MS = 1500;
const AIM_MAX_FRAME_MS = 50;

interface FrameStats {
  frames: number;
  meanMs: number;
  p95Ms: number;
  maxMs: number;
  over50: number;
  longTasks: number;
  longestTaskMs: number;
}

export interface TimelineBenchResult {
  peaksFirstMs: number;
  openMs: number[];
  scroll: Record<string, FrameStats>;
  dragEdge: FrameStats;
  dragBlock: FrameStats;
  dropMs: number;
  ok: boolean;
}

/** Records, from navigation start, when a block is mounted, the source waveform drawn and the main thread free. */
const OPEN_PROBE = `
(() => {
  window.__tlOpen = null;
  const drawn = () => {
    const c = document.querySelector('[data-testid="timeline-source-wave"]');
    if (!c || !document.querySelector('[data-tl-segment]')) return false;
    const ctx = c.getContext('2d');
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < px.length; i += 16) if (px[i] > 0) n++;
    return n > 50;
  };
  window.__tlMarks = {};
  const mark = (k) => { if (window.__tlMarks[k] === undefined) window.__tlMarks[k] = Math.round(performance.now()); };
  const wait = () => new Promise((resolve) => {
    const tick = () => {
      if (document.querySelector('textarea[aria-label="Translation of segment 1"]')) mark('list');
      if (document.querySelector('[data-tl-segment]')) mark('blocks');
      if (drawn()) {
        mark('wave');
        requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => { window.__tlOpen = performance.now(); resolve(window.__tlOpen); }, 0)));
      } else requestAnimationFrame(tick);
    };
    tick();
  });
  document.addEventListener('DOMContentLoaded', () => { window.__tlOpenP = wait(); });
})();
`;

// Plain JavaScript run in the page (a string: tsx would add helpers the page does not have).
const MEASURE = `
async (kind, arg) => {
  const area = document.querySelector('[data-testid="timeline-area"]');
  if (!area) throw new Error('timeline not found');
  const longTasks = [];
  let po = null;
  try {
    po = new PerformanceObserver((l) => l.getEntries().forEach((e) => longTasks.push(e.duration)));
    po.observe({ type: 'longtask', buffered: false });
  } catch { po = null; }
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  await frame(); await frame();
  const frames = [];
  let dropMs = null;
  const ruler = area.querySelector('canvas');
  const rect = ruler.getBoundingClientRect();
  const y0 = rect.top + 5;
  if (kind === 'scroll') {
    let last = performance.now();
    for (let i = 0; i < 240; i++) {
      const t = await frame();
      frames.push(t - last); last = t;
      const dir = i < 120 ? 1 : -1;
      ruler.dispatchEvent(new WheelEvent('wheel', { deltaY: dir * arg, clientX: rect.left + 400, clientY: y0, bubbles: true, cancelable: true }));
    }
  } else {
    // Drag the end edge (or the middle) of the first mounted block of the middle of the view.
    const blocks = [...document.querySelectorAll('[data-tl-segment]')];
    const b = blocks[Math.floor(blocks.length / 2)];
    const r = b.getBoundingClientRect();
    const x0 = kind === 'edge' ? r.right - 2 : r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const opts = (x) => ({ clientX: x, clientY: y, bubbles: true, cancelable: true, pointerId: 7, button: 0, buttons: 1, isPrimary: true, pointerType: 'mouse' });
    b.dispatchEvent(new PointerEvent('pointerdown', opts(x0)));
    let last = await frame();
    for (let i = 0; i < 240; i++) {
      // Out and back: 2 px a frame, within +-120 px.
      const dx = i < 60 ? i * 2 : i < 180 ? 240 - i * 2 : i * 2 - 480;
      window.dispatchEvent(new PointerEvent('pointermove', opts(x0 + dx)));
      const t = await frame();
      frames.push(t - last); last = t;
    }
    window.dispatchEvent(new PointerEvent('pointermove', opts(x0 + 30)));
    await frame();
    const t0 = performance.now();
    window.dispatchEvent(new PointerEvent('pointerup', opts(x0 + 30)));
    await frame();
    dropMs = performance.now() - t0;
  }
  await new Promise((r) => setTimeout(r, 100));
  if (po) po.disconnect();
  const f = frames.slice(1).sort((a, b) => a - b);
  const mean = f.reduce((s, x) => s + x, 0) / Math.max(1, f.length);
  const r1 = (x) => Math.round(x * 10) / 10;
  return {
    stats: {
      frames: f.length, meanMs: r1(mean), p95Ms: r1(f[Math.floor(f.length * 0.95)] ?? 0), maxMs: r1(f[f.length - 1] ?? 0),
      over50: f.filter((x) => x > 50).length, longTasks: longTasks.length, longestTaskMs: Math.round(Math.max(0, ...longTasks)),
    },
    dropMs: dropMs === null ? null : r1(dropMs),
    blocks: document.querySelectorAll('[data-tl-segment]').length,
  };
}`;

async function measure(page: Page, kind: 'scroll' | 'edge' | 'block', arg = 0) {
  return (await page.evaluate(`(${MEASURE})(${JSON.stringify(kind)}, ${arg})`)) as { stats: FrameStats; dropMs: number | null; blocks: number };
}

/** Zooms with the buttons until `pred(blocks mounted)` holds (or `max` clicks). */
async function zoomUntil(page: Page, button: 'Zoom in' | 'Zoom out', pred: (blocks: number) => boolean, max = 30): Promise<number> {
  for (let i = 0; i < max; i++) {
    const n = await page.locator('[data-tl-segment]').count();
    if (pred(n)) return n;
    await page.getByRole('button', { name: button }).click();
  }
  return page.locator('[data-tl-segment]').count();
}

export async function runTimelineBench(o: { runs?: number; log?: (line: string) => void } = {}): Promise<TimelineBenchResult> {
  const runs = o.runs ?? 3;
  const log = o.log ?? ((l: string) => console.log(l));
  const work = mkdtempSync(join(tmpdir(), 'ds-bench-timeline-'));
  const server = await startTimelineServer('bench-timeline@example.com');
  const browser = await launchBrowser();
  try {
    // 3 hours of speech-like sound: 0.9 s on, 0.18 s off (the segments sit on the sound).
    const wav = join(work, 'source.wav');
    await synthAudio(wav, {
      seconds: TIMELINE_BENCH_SECONDS, sampleRate: 16000, channels: 1,
      source: `anoisesrc=c=pink:r=16000:a=0.5,volume='if(lt(mod(t\\,1.08)\\,0.9)\\,1\\,0.03)':eval=frame`,
    });
    const speakers = [{ id: 'SPEAKER_00', name: 'Host' }, { id: 'SPEAKER_01', name: 'Guest' }, { id: 'SPEAKER_02', name: 'Caller' }];
    const step = TIMELINE_BENCH_SECONDS / TIMELINE_BENCH_SEGMENTS;
    const segments: SeedSegment[] = Array.from({ length: TIMELINE_BENCH_SEGMENTS }, (_, i) => ({
      start: Math.round(i * step * 1000) / 1000, end: Math.round((i * step + 0.9) * 1000) / 1000,
      speaker: speakers[i % 3 === 0 ? 1 : i % 7 === 0 ? 2 : 0]!.id,
      src: `Sentence number ${i + 1} of the long recording.`, dst: `Frase número ${i + 1} de la grabación larga.`,
    }));
    const id = await server.seedProject({ name: 'Bench: 3 hours, 10,000 segments', duration: TIMELINE_BENCH_SECONDS, segments, speakers, sourceWav: wav });

    // The first request computes every resolution from the 3-hour file (ffmpeg -> PCM -> min/max); timed apart.
    const t0 = performance.now();
    const first = await fetch(`${server.base}/api/project/${id}/peaks?track=source&resolution=5`, { headers: { authorization: `Bearer ${server.token}` } });
    if (!first.ok) throw new Error(`peaks: ${first.status} ${await first.text()}`);
    await first.arrayBuffer();
    const peaksFirstMs = Math.round(performance.now() - t0);

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await server.signIn(context);
    await context.addInitScript(OPEN_PROBE);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const url = `${server.base}/spaces/${server.spaceId}/project/${id}`;
    // Warm-up (HTTP cache, server JIT), not counted.
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { __tlOpen: number | null }).__tlOpen !== null, null, { timeout: 120_000 });
    const openMs: number[] = [];
    const marks: string[] = [];
    for (let i = 0; i < runs; i++) {
      await page.goto(url);
      openMs.push(Math.round((await page.evaluate('window.__tlOpenP')) as number));
      const m = (await page.evaluate('window.__tlMarks')) as Record<string, number>;
      marks.push(`list ${m.list} / blocks ${m.blocks} / waveform ${m.wave}`);
    }
    // The tour card (trial account) stays out of the way.
    await page.getByRole('button', { name: 'Skip tour' }).click({ timeout: 5_000 }).catch(() => undefined);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'timeline-3h-10000.png') });

    const scroll: Record<string, FrameStats> = {};
    const opening = await measure(page, 'scroll', 120);
    scroll[`opening zoom (${opening.blocks} blocks mounted)`] = opening.stats;
    const dragEdge = (await measure(page, 'edge')).stats;
    const dragBlock = await measure(page, 'block');
    const busy = await zoomUntil(page, 'Zoom out', (n) => n >= 200);
    const mid = await measure(page, 'scroll', 120);
    scroll[`zoomed out (${busy}-${mid.blocks} blocks mounted)`] = mid.stats;
    await page.getByRole('button', { name: 'Whole video' }).click();
    const whole = await measure(page, 'scroll', 120);
    scroll['whole video (lanes drawn)'] = whole.stats;
    await page.screenshot({ path: join(ARTIFACTS, 'timeline-3h-10000-whole.png') });
    await context.close();
    if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`);

    const frames = [...Object.values(scroll), dragEdge, dragBlock.stats];
    const ok = Math.max(...openMs) < AIM_OPEN_MS && frames.every((f) => f.maxMs <= AIM_MAX_FRAME_MS);
    const fmt = (s: FrameStats) =>
      `${s.frames} frames, mean ${s.meanMs} ms, p95 ${s.p95Ms} ms, max ${s.maxMs} ms, >50 ms: ${s.over50}, long tasks ${s.longTasks} (longest ${s.longestTaskMs} ms)`;
    log(`Timeline bench: ${TIMELINE_BENCH_SECONDS / 3600} h, ${TIMELINE_BENCH_SEGMENTS.toLocaleString('en')} segments, 3 speakers, Chromium headless, node ${process.version}`);
    log(`  source peaks computed on first request (3 h WAV, ffmpeg + min/max, 3 resolutions): ${peaksFirstMs} ms`);
    log(`  open -> timeline interactive (page load): ${openMs.join(' / ')} ms   (aim < ${AIM_OPEN_MS} ms)`);
    log(`    first seen (ms from navigation): ${marks.join('; ')}`);
    for (const [k, s] of Object.entries(scroll)) log(`  wheel scroll, ${k}: ${fmt(s)}`);
    log(`  drag an edge (2 px a frame): ${fmt(dragEdge)}`);
    log(`  drag a block (2 px a frame): ${fmt(dragBlock.stats)}`);
    log(`  drop -> next frame (store, list and timeline updated): ${dragBlock.dropMs} ms`);
    log(`  machine load average (1 min): ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
    log(`  ${ok ? 'within the aims' : 'OUTSIDE the aims'} (no frame over ${AIM_MAX_FRAME_MS} ms while dragging or scrolling)`);
    return { peaksFirstMs, openMs, scroll, dragEdge, dragBlock: dragBlock.stats, dropMs: dragBlock.dropMs ?? 0, ok };
  } finally {
    await browser.close();
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runTimelineBench().then(
    (r) => process.exit(r.ok ? 0 : 1),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
