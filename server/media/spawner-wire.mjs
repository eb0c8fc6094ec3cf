// The tool spawner's wire format, shared by the spawner (./tool-spawner.mjs, plain Node: it loads no TypeScript)
// and its client (./spawner.ts): a message is a 4-byte big-endian length and a v8-serialized object.
import { Buffer } from 'node:buffer';
import { deserialize, serialize } from 'node:v8';

/** One message as the bytes to write. */
export function frame(msg) {
  const body = serialize(msg);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** Reads messages out of a stream's chunks, however they were cut. */
export class FrameReader {
  #pending = Buffer.alloc(0);

  /** The messages complete with `chunk`; a partial one waits for the next chunks. */
  push(chunk) {
    this.#pending = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    const out = [];
    while (this.#pending.length >= 4) {
      const n = this.#pending.readUInt32BE(0);
      if (this.#pending.length < 4 + n) break;
      out.push(deserialize(this.#pending.subarray(4, 4 + n)));
      this.#pending = this.#pending.subarray(4 + n);
    }
    return out;
  }
}
