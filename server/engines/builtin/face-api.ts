// Built-in face detection and 68-point landmarks: @vladmandic/face-api on the TensorFlow.js WASM backend
// (@tensorflow/tfjs-backend-wasm; not tfjs-node, whose install downloads a native library). Everything
// comes from node_modules: the .wasm binaries of the backend and the models bundled in face-api's `model`
// folder (SSD MobileNet v1 detector, 68-point landmark net). Nothing is fetched at install or run time.
// The runtime and the models load once per process, on the first call.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EngineError, type DetectedFace, type EngineCallOptions, type FaceBox, type FaceEngine, type Point, type RgbImage } from '../types';
import { throwIfAborted } from './util';

// The few parts of tfjs and face-api used here (their bundled typings are large and loose).
interface Tensor3D {
  dispose(): void;
}
interface Tfjs {
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  getBackend(): string;
  tensor3d(values: Int32Array, shape: [number, number, number], dtype: 'int32'): Tensor3D;
  engine(): { startScope(): void; endScope(): void };
}
interface FaceApiBox {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface FaceApiLandmarks {
  positions: Array<{ x: number; y: number }>;
  shiftBy(x: number, y: number): FaceApiLandmarks;
}
interface FaceApiResult {
  detection: { box: FaceApiBox; score: number };
  landmarks: FaceApiLandmarks;
}
interface FaceApiNet {
  loadFromDisk(dir: string): Promise<void>;
  isLoaded: boolean;
}
interface FaceApi {
  nets: {
    ssdMobilenetv1: FaceApiNet;
    faceLandmark68Net: FaceApiNet & { detectLandmarks(input: Tensor3D): Promise<FaceApiLandmarks | FaceApiLandmarks[]> };
  };
  SsdMobilenetv1Options: new (o: { minConfidence?: number; maxResults?: number }) => unknown;
  Rect: new (x: number, y: number, w: number, h: number) => FaceApiBox;
  detectAllFaces(input: Tensor3D, options: unknown): { withFaceLandmarks(): Promise<FaceApiResult[]> };
  extractFaceTensors(input: Tensor3D, boxes: FaceApiBox[]): Promise<Tensor3D[]>;
}

export const FACE_API_ENGINE_ID = 'face-api';

const require = createRequire(import.meta.url);

/** Folder of the models shipped inside the @vladmandic/face-api package. */
export function faceApiModelDir(): string {
  return join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
}

/** Folder holding the tfjs WASM binaries (tfjs-backend-wasm{,-simd,-threaded-simd}.wasm). */
export function tfjsWasmDir(): string {
  return dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm')) + '/';
}

const MODEL_FILES = [
  'ssd_mobilenetv1_model-weights_manifest.json',
  'ssd_mobilenetv1_model.bin',
  'face_landmark_68_model-weights_manifest.json',
  'face_landmark_68_model.bin',
];

let runtime: Promise<{ tf: Tfjs; faceapi: FaceApi }> | null = null;

/** Loads tfjs on the WASM backend and the two models, once per process. */
export function loadFaceApi(): Promise<{ tf: Tfjs; faceapi: FaceApi }> {
  runtime ??= (async () => {
    const tf = require('@tensorflow/tfjs') as Tfjs;
    const wasm = require('@tensorflow/tfjs-backend-wasm') as { setWasmPaths(prefix: string, usePlatformFetch?: boolean): void };
    // The node-wasm build binds face-api to @tensorflow/tfjs + the WASM backend (the package's default
    // entry is the tfjs-node build).
    const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
    wasm.setWasmPaths(tfjsWasmDir());
    if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js WASM backend could not start');
    await tf.ready();
    const dir = faceApiModelDir();
    await faceapi.nets.ssdMobilenetv1.loadFromDisk(dir);
    await faceapi.nets.faceLandmark68Net.loadFromDisk(dir);
    return { tf, faceapi };
  })();
  runtime.catch(() => {
    runtime = null;
  });
  return runtime;
}

function toTensor(tf: Tfjs, img: RgbImage): Tensor3D {
  if (img.data.length !== img.width * img.height * 3) {
    throw new EngineError('bad_input', `an RGB image of ${img.width}x${img.height} needs ${img.width * img.height * 3} bytes, got ${img.data.length}`);
  }
  return tf.tensor3d(Int32Array.from(img.data), [img.height, img.width, 3], 'int32');
}

const pts = (l: FaceApiLandmarks): Point[] => l.positions.map((p) => [p.x, p.y]);

export interface FaceApiOptions {
  /** Detector confidence needed (default 0.5). */
  minScore?: number;
}

export function createFaceApiEngine(opts: FaceApiOptions = {}): FaceEngine {
  return {
    id: FACE_API_ENGINE_ID,
    label: 'face-api (SSD MobileNet v1 + 68-point landmarks, TensorFlow.js WASM)',
    // Cheap: the runtime itself loads on the first detection (tests and servers that never use faces skip it).
    async init() {
      const dir = faceApiModelDir();
      const missing = MODEL_FILES.filter((f) => !existsSync(join(dir, f)));
      if (missing.length) throw new Error(`face-api models missing in ${dir}: ${missing.join(', ')}`);
      if (!existsSync(join(tfjsWasmDir(), 'tfjs-backend-wasm.wasm'))) throw new Error('the TensorFlow.js WASM binaries are missing');
    },
    available() {
      try {
        return MODEL_FILES.every((f) => existsSync(join(faceApiModelDir(), f)));
      } catch {
        return false;
      }
    },
    async detect(img: RgbImage, o: EngineCallOptions & { minScore?: number; maxFaces?: number } = {}): Promise<DetectedFace[]> {
      throwIfAborted(o.signal);
      const { tf, faceapi } = await loadFaceApi();
      const t = toTensor(tf, img);
      try {
        const options = new faceapi.SsdMobilenetv1Options({ minConfidence: o.minScore ?? opts.minScore ?? 0.5, maxResults: o.maxFaces ?? 10 });
        const found = await faceapi.detectAllFaces(t, options).withFaceLandmarks();
        return found
          .map((r) => ({
            box: { x: r.detection.box.x, y: r.detection.box.y, width: r.detection.box.width, height: r.detection.box.height },
            score: r.detection.score,
            landmarks: pts(r.landmarks),
          }))
          .sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
      } finally {
        t.dispose();
      }
    },
    async landmarks(img: RgbImage, boxes: FaceBox[], o: EngineCallOptions = {}): Promise<Point[][]> {
      throwIfAborted(o.signal);
      if (boxes.length === 0) return [];
      const { tf, faceapi } = await loadFaceApi();
      const t = toTensor(tf, img);
      try {
        // Boxes are clipped to the picture; a box entirely outside it has no landmarks to give.
        const clipped = boxes.map((b) => {
          const x = Math.max(0, Math.floor(b.x));
          const y = Math.max(0, Math.floor(b.y));
          const w = Math.min(img.width - x, Math.ceil(b.x + b.width) - x);
          const h = Math.min(img.height - y, Math.ceil(b.y + b.height) - y);
          return { x, y, w: Math.max(1, w), h: Math.max(1, h) };
        });
        const crops = await faceapi.extractFaceTensors(t, clipped.map((c) => new faceapi.Rect(c.x, c.y, c.w, c.h)));
        const out: Point[][] = [];
        try {
          for (let i = 0; i < crops.length; i++) {
            const r = await faceapi.nets.faceLandmark68Net.detectLandmarks(crops[i]!);
            const l = Array.isArray(r) ? r[0]! : r;
            out.push(pts(l.shiftBy(clipped[i]!.x, clipped[i]!.y)));
          }
        } finally {
          for (const c of crops) c.dispose();
        }
        return out;
      } finally {
        t.dispose();
      }
    },
  };
}
