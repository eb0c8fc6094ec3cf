// Typed errors of the media layer. Pipeline stages map `code` to a project status
// (corrupt -> upload_failed, no_audio -> no_audio, forbidden_link -> forbidden_link ...).

export type MediaErrorCode =
  | 'corrupt' // the file cannot be read as media (text file, truncated, 0 bytes)
  | 'not_found' // the input path does not exist
  | 'no_audio' // the media has no audio stream where one is required
  | 'forbidden_link' // a link could not be fetched (private, removed, unsupported, too long)
  | 'too_long' // longer than an allowed maximum
  | 'failed'; // a tool failed for another reason

export class MediaError extends Error {
  override readonly name = 'MediaError';
  readonly code: MediaErrorCode;
  constructor(code: MediaErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Error thrown by run(): the command, its exit status and the tail of its stderr. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
  constructor(
    message: string,
    readonly cmd: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderrTail: string,
    readonly reason: 'exit' | 'spawn' | 'timeout' | 'aborted',
  ) {
    super(message);
  }
}

export function isAbortError(e: unknown): boolean {
  return (
    (e instanceof CommandError && e.reason === 'aborted') ||
    (e instanceof Error && (e.name === 'AbortError' || (e as { code?: string }).code === 'ABORT_ERR'))
  );
}
