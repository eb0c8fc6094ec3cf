// The create flow's video upload: tus (resumes after a dropped connection) or one multipart POST when the
// settings turn tus off; progress, the local duration read from the file, retry by starting again, abort on
// unmount or reset.
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../../lib/http';
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
      (e: unknown) => setUpload((u) => (u && u.file === file ? { ...u, status: 'failed', error: errorMessage(e) || (e as Error).message } : u)),
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
