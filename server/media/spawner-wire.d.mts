// Types of ./spawner-wire.mjs (the tool spawner's wire format).
export declare function frame(msg: unknown): Buffer;
export declare class FrameReader {
  /** The messages complete with `chunk`; a partial one waits for the next chunks. */
  push(chunk: Buffer): unknown[];
}
