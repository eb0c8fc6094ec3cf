// The create flow's video upload: tus (resumes after a dropped connection) or one multipart POST when the
// settings turn tus off; progress, the local duration read from the file, retry by starting again, abort on
// unmount or reset.
import { useEffect, useRef, useState } from 'react';
import { errorMessage, isApiError } from '../../../lib/http';
import { uploadMultipart } from '../api';
import { localDuration, startUpload, type UploadHandle } from '../upload';

export interface UploadState {
  file: File;
  sent: number;
  total: number;
  status: 'uploading' | 'done' | 'failed';
  mediaId: string | null;
  error: string | null;
}

/** The user's own mistakes, named as such (not "Server error"). */
export const UPLOAD_TEXTS = {
  empty: 'This file is empty',
  notMedia: 'This file is not a video or audio file we can read',
  formats: 'Choose an MP4, MOV, MKV, WEBM or AVI video, or an MP3, WAV or M4A audio file.',
} as const;

/** What a failed upload tells the user: the file's problem in their words, or the server's message. */
export function uploadErrorText(e: unknown): string {
  const raw = isApiError(e) ? errorMessage(e) : e instanceof Error ? e.message : errorMessage(e);
  if (/\bempty\b|0 bytes/i.test(raw)) return UPLOAD_TEXTS.empty;
  if (/not a readable|could not be read|not a media|invalid data|unsupported/i.test(raw)) return UPLOAD_TEXTS.notMedia;
  return raw;
}

/** Whether the text is about the file itself (another file is needed, trying again will not help). */
export function isFileProblem(text: string | null): boolean {
  return text === UPLOAD_TEXTS.empty || text === UPLOAD_TEXTS.notMedia;
}

export function uploadPercent(sent: number, total: number): number {
  return total > 0 ? Math.min(100, Math.round((sent / total) * 100)) : 0;
}

export function useVideoUpload(o: { spaceId: string; tus: boolean }) {
  const [upload, setUpload] = useState<UploadState | null>(null);
  /** Seconds: read from the file in the browser, replaced by the server's figure once uploaded. */
  const [duration, setDuration] = useState<number | null>(null);
  const handle = useRef<UploadHandle | null>(null);
  useEffect(() => () => handle.current?.abort(), []);

  const begin = (file: File) => {
    handle.current?.abort();
    setDuration(null);
    // An empty file is refused here: nothing to send (the upload protocol would only fail on it).
    if (file.size === 0) {
      handle.current = null;
      setUpload({ file, sent: 0, total: 0, status: 'failed', mediaId: null, error: UPLOAD_TEXTS.empty });
      return;
    }
    void localDuration(file).then((d) => setDuration((cur) => cur ?? d));
    setUpload({ file, sent: 0, total: file.size, status: 'uploading', mediaId: null, error: null });
    const onProgress = (sent: number, total: number) => setUpload((u) => (u && u.file === file ? { ...u, sent, total } : u));
    const done = o.tus
      ? (handle.current = startUpload(file, { spaceId: o.spaceId, kind: 'video', onProgress })).done
      : uploadMultipart(file, 'video').then((m) => ({ ...m, duration: null, error: null }));
    done.then(
      (media) => {
        setUpload((u) => (u && u.file === file ? { ...u, status: 'done', sent: u.total, mediaId: media.id } : u));
        if (media.duration != null) setDuration(media.duration);
      },
      (e: unknown) => setUpload((u) => (u && u.file === file ? { ...u, status: 'failed', error: uploadErrorText(e) } : u)),
    );
  };

  const reset = () => {
    handle.current?.abort();
    handle.current = null;
    setUpload(null);
    setDuration(null);
  };

  return { upload, duration, begin, reset };
}
