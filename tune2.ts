import { separateFile } from './server/engines/builtin/speech-separation';
import { createSileroVad } from './server/engines/builtin/silero-vad';
const c = 'low-male';
const regions = await createSileroVad().detect(`/tmp/tune/${c}-16k.wav`);
for (let k = 0; k < 3; k++) {
const t0 = performance.now();
separateFile({ input: `/tmp/bench-quality-5WCc9z/${c}/mix.wav`, regions, background: `/tmp/tune/x-bg.wav`, voice: '/tmp/tune/x-v.wav', voiceSampleRate: 16000 });
console.log('sec/min', ((performance.now() - t0) / 1000 / (31 / 60)).toFixed(2));
}
