// All languages of the video (issue 31): the "All languages" downloads of the original project (one MP4 or MKV
// with an audio and a subtitle track per finished language) and its HLS package, played here with hls.js; the
// player switches the audio language when the video has more than one dubbed language.
import { Modal, Select, Text } from '@shopify/polaris';
import Hls from 'hls.js';
import { useCallback, useEffect, useRef, useState } from 'react';
import { TEXT } from '../../../../contract/errors';
import { call, client } from '../../../lib/api/client';
import { TIMEOUT_HEADER, errorMessage } from '../../../lib/http';
import { useToast } from '../../../ui/toasts';
import { triggerDownload } from '../lib/download';

export type AllLanguagesFormat = 'mp4' | 'mkv' | 'hls';

export interface DeliverableLanguage {
  lang: string;
  code: string;
  name: string;
  project_id: string | null;
  original: boolean;
  default: boolean;
}

function fetchLanguages(projectId: string): Promise<{ languages: DeliverableLanguage[] }> {
  return call(client.GET('/api/project/{id}/deliverables', { params: { path: { id: projectId } } }));
}

function makeDeliverable(projectId: string, format: AllLanguagesFormat): Promise<{ url: string; languages: DeliverableLanguage[] }> {
  return call(
    client.POST('/api/project/{id}/deliverables', { params: { path: { id: projectId }, query: { format } }, headers: { [TIMEOUT_HEADER]: String(10 * 60_000) } }),
  );
}

/** The finished languages of the video (original first), the downloads and the HLS player's state. */
export function useAllLanguages(projectId: string, enabled: boolean, refreshKey: unknown) {
  const toast = useToast();
  const [languages, setLanguages] = useState<DeliverableLanguage[] | null>(null);
  const [busy, setBusy] = useState<AllLanguagesFormat | null>(null);
  const [hlsUrl, setHlsUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    fetchLanguages(projectId).then((r) => live && setLanguages(r.languages), () => live && setLanguages([]));
    return () => {
      live = false;
    };
  }, [projectId, enabled, refreshKey]);
  const run = useCallback(async (format: AllLanguagesFormat) => {
    setBusy(format);
    try {
      const r = await makeDeliverable(projectId, format);
      if (format === 'hls') setHlsUrl(r.url);
      else triggerDownload(r.url);
    } catch (e) {
      toast.show(errorMessage(e), { error: true });
    } finally {
      setBusy(null);
    }
  }, [projectId, toast]);
  return { languages, busy, run, hlsUrl, closeHls: () => setHlsUrl(null) };
}

/** The HLS package in a player; a language picker when more than one language is dubbed. */
export function AllLanguagesPlayer({ url, languages, onClose }: { url: string; languages: DeliverableLanguage[]; onClose: () => void }) {
  const video = useRef<HTMLVideoElement | null>(null);
  const [tracks, setTracks] = useState<Array<{ name: string; lang: string }>>([]);
  const [current, setCurrent] = useState(0);
  const hls = useRef<Hls | null>(null);
  const attach = useCallback((el: HTMLVideoElement | null) => {
    video.current = el;
    hls.current?.destroy();
    hls.current = null;
    if (!el) return;
    if (!Hls.isSupported()) {
      el.src = url; // Safari plays HLS itself
      return;
    }
    const h = new Hls();
    hls.current = h;
    h.on(Hls.Events.AUDIO_TRACKS_UPDATED, (_e, d) => {
      setTracks(d.audioTracks.map((t) => ({ name: t.name, lang: t.lang ?? '' })));
      setCurrent(h.audioTrack);
    });
    h.on(Hls.Events.AUDIO_TRACK_SWITCHED, (_e, d) => setCurrent(d.id));
    h.loadSource(url);
    h.attachMedia(el);
  }, [url]);
  useEffect(() => () => hls.current?.destroy(), []);
  const dubbed = languages.filter((l) => !l.original).length;
  return (
    <Modal open onClose={onClose} title={TEXT.allLanguagesPlayerTitle} secondaryActions={[{ content: 'Close', onAction: onClose }]}>
      <Modal.Section>
        <div className="all-languages-player">
          <video ref={attach} controls playsInline data-testid="all-languages-video" style={{ width: '100%', maxHeight: '60vh', background: '#000' }} />
          {dubbed > 1 && tracks.length > 1 ? (
            <Select
              label={TEXT.allLanguagesAudio}
              options={tracks.map((t, i) => ({ label: t.name, value: String(i) }))}
              value={String(current)}
              onChange={(v) => {
                if (hls.current) hls.current.audioTrack = Number(v);
              }}
            />
          ) : null}
          <Text as="p" variant="bodySm" tone="subdued" breakWord>
            {TEXT.allLanguagesHlsLink} <span data-testid="all-languages-hls-url">{url}</span>
          </Text>
        </div>
      </Modal.Section>
    </Modal>
  );
}
