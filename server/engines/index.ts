// Engines: one interface per kind (./types), built-in offline engines (./builtin), the registry and
// the language catalogue.
export * from './types';
export * from './registry';
export * from './languages';
export { createSileroVad, resolveSileroModel } from './builtin/silero-vad';
export { createPocketsphinxAsr } from './builtin/pocketsphinx';
export { createDspDiarization } from './builtin/dsp-diarization';
export { createApertiumMt } from './builtin/apertium';
export { createEspeakTts } from './builtin/espeak';
export { createDspSeparation } from './builtin/dsp-separation';
