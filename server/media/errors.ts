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

/** A write that failed because the disk (or a quota) is full: ENOSPC/EDQUOT anywhere in the error's causes, or a
 *  tool that said so on stderr (ffmpeg: "No space left on device"). */
export function isDiskFull(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    const code = (x as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') return true;
    const text = `${(x as Error).message ?? ''} ${(x as { stderrTail?: string }).stderrTail ?? ''}`;
    if (/No space left on device|ENOSPC|Disk quota exceeded/i.test(text)) return true;
  }
  return false;
}
