// Creating a dub: upload a video (tus, resumes after a dropped connection) or paste a link, choose the
// languages, optionally source/target SRT files and a dictionary, check the minutes, start.
import {
  Banner, BlockStack, Button, ButtonGroup, DropZone, InlineStack, Modal, ProgressBar, Select, Spinner, Text, TextField,
} from '@shopify/polaris';
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { TEXT } from '../../../../contract/errors';
import { isFeatureAvailable, type FeatureKey } from '../../../../contract/features';
import type { Project } from '../../../../contract/schemas/project';
import type { Settings } from '../../../../contract/schemas/settings';
import type { Credits } from '../../../../contract/schemas/space';
import { paymentContextOf, paymentRequiredAction } from '../../../app/errors';
import { buyMinutesOpenAtom, deviceTypeAtom, globalErrorAtom, unknownErrorOpenAtom } from '../../../app/state';
import { useCurrentUser } from '../../account/api';
import { errorMessage, isApiError } from '../../../lib/http';
import { currentAppPath } from '../../../lib/page';
import { createTranscript, uploadMultipart, useGlossaries, videoInfo, type CreateTranscriptBody } from '../api';
import { hasErrors, nameFrom, validateCreateForm, type CreateFormErrors, type SourceKind } from '../lib/createForm';
import { languageOptions } from '../lib/languages';
import { checkMinutes } from '../lib/minutes';
import { localDuration, startUpload, type UploadHandle } from '../upload';

interface UploadState {
  file: File;
  sent: number;
  total: number;
  status: 'uploading' | 'done' | 'failed';
  mediaId: string | null;
  error: string | null;
}

interface SrtState {
  name: string;
  status: 'uploading' | 'done' | 'failed';
  mediaId: string | null;
  error: string | null;
}

export interface CreateDubModalProps {
  open: boolean;
  onClose: () => void;
  spaceId: string;
  settings: Settings | undefined;
  credits: Credits | undefined;
  onCreated: (p: Project) => void;
}

const SPEAKER_OPTIONS = [
  { label: 'Detect automatically', value: '' },
  ...Array.from({ length: 10 }, (_, i) => ({ label: String(i + 1), value: String(i + 1) })),
];

function percent(sent: number, total: number): number {
  return total > 0 ? Math.min(100, Math.round((sent / total) * 100)) : 0;
}

export function CreateDubModal({ open, onClose, spaceId, settings, credits, onCreated }: CreateDubModalProps) {
  const device = useAtomValue(deviceTypeAtom);
  const features = settings?.scope_settings.available_features;
  const feature = (k: FeatureKey) => isFeatureAvailable(features?.[k], device);
  const srtUpload = feature('srt_upload');
  const glossaryOn = feature('glossary');
  const tusOn = features?.tus ? features.tus.enabled : true;

  const srcOptions = useMemo(() => languageOptions(settings?.languages.transcription ?? []), [settings]);
  const dstOptions = useMemo(
    () => languageOptions(settings?.languages.translation ?? [], { translation: true, freeLanguages: feature('free_languages') }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [settings, device],
  );

  const [source, setSource] = useState<SourceKind>('upload');
  const [name, setName] = useState('');
  const [nameTouched, setNameTouched] = useState(false);
  const [link, setLink] = useState('');
  const [linkInfo, setLinkInfo] = useState<{ link: string; duration: number | null; title: string | null; loading: boolean; error: string | null } | null>(null);
  const [srcLang, setSrcLang] = useState('');
  const [dstLang, setDstLang] = useState('');
  const [speakers, setSpeakers] = useState('');
  const [glossaryId, setGlossaryId] = useState('');
  const [upload, setUpload] = useState<UploadState | null>(null);
  const [localDur, setLocalDur] = useState<number | null>(null);
  const [srcSrt, setSrcSrt] = useState<SrtState | null>(null);
  const [dstSrt, setDstSrt] = useState<SrtState | null>(null);
  const [shown, setShown] = useState<CreateFormErrors>({});
  const [submitting, setSubmitting] = useState(false);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const handle = useRef<UploadHandle | null>(null);

  const { data: glossaries } = useGlossaries(spaceId, srcLang, dstLang, glossaryOn && open);
  const { data: user } = useCurrentUser();
  const setGlobalError = useSetAtom(globalErrorAtom);
  const setBuyMinutes = useSetAtom(buyMinutesOpenAtom);
  const setUnknownError = useSetAtom(unknownErrorOpenAtom);
  const [, navigate] = useLocation();

  // Defaults: the first language of each list (source English when offered).
  useEffect(() => {
    if (!srcLang && srcOptions.length > 0) setSrcLang((srcOptions.find((o) => o.value === 'en') ?? srcOptions[0]).value);
  }, [srcOptions, srcLang]);
  useEffect(() => {
    if (!dstLang && dstOptions.length > 0) {
      const other = dstOptions.find((o) => o.value !== (srcLang || 'en'));
      setDstLang((other ?? dstOptions[0]).value);
    }
  }, [dstOptions, dstLang, srcLang]);

  useEffect(() => () => handle.current?.abort(), []);

  const durationSec = source === 'upload' ? (upload ? localDur : null) : linkInfo?.link === link.trim() ? linkInfo.duration : null;
  const values = {
    source,
    name,
    link,
    mediaId: upload?.status === 'done' ? upload.mediaId : null,
    uploading: upload?.status === 'uploading',
    srcLang,
    dstLang,
    durationSec,
  };
  const errors = validateCreateForm(values, credits);
  const minutes = checkMinutes(credits, durationSec);

  const reset = () => {
    handle.current?.abort();
    handle.current = null;
    setSource('upload');
    setName('');
    setNameTouched(false);
    setLink('');
    setLinkInfo(null);
    setUpload(null);
    setLocalDur(null);
    setSrcSrt(null);
    setDstSrt(null);
    setShown({});
    setSubmitError(null);
    setGlossaryId('');
    setSpeakers('');
  };
  const close = () => {
    if (submitting) return;
    reset();
    onClose();
  };

  const beginUpload = (file: File) => {
    handle.current?.abort();
    setShown((s) => ({ ...s, file: undefined }));
    if (!nameTouched) setName(nameFrom(file.name));
    setLocalDur(null);
    void localDuration(file).then((d) => setLocalDur((cur) => cur ?? d));
    setUpload({ file, sent: 0, total: file.size, status: 'uploading', mediaId: null, error: null });
    const onProgress = (sent: number, total: number) => setUpload((u) => (u && u.file === file ? { ...u, sent, total } : u));
    const done = tusOn
      ? (handle.current = startUpload(file, { spaceId, kind: 'video', onProgress })).done
      : uploadMultipart(file, 'video').then((m) => ({ ...m, duration: null, error: null }));
    done.then(
      (media) => {
        setUpload((u) => (u && u.file === file ? { ...u, status: 'done', sent: u.total, mediaId: media.id } : u));
        if (media.duration != null) setLocalDur(media.duration);
      },
      (e: unknown) => setUpload((u) => (u && u.file === file ? { ...u, status: 'failed', error: errorMessage(e) || (e as Error).message } : u)),
    );
  };

  const uploadSrt = (file: File, set: (s: SrtState | null) => void) => {
    if (!/\.srt$/i.test(file.name)) {
      set({ name: file.name, status: 'failed', mediaId: null, error: 'Choose a .srt subtitle file' });
      return;
    }
    set({ name: file.name, status: 'uploading', mediaId: null, error: null });
    uploadMultipart(file, 'srt').then(
      (m) => set({ name: file.name, status: m.status === 'failed' ? 'failed' : 'done', mediaId: m.id, error: m.status === 'failed' ? 'The subtitle file could not be read' : null }),
      (e: unknown) => set({ name: file.name, status: 'failed', mediaId: null, error: errorMessage(e) }),
    );
  };

  type LinkInfoState = { link: string; duration: number | null; title: string | null; loading: boolean; error: string | null };
  const linkCheck = useRef<{ link: string; promise: Promise<LinkInfoState> } | null>(null);
  /** Reads the link's length and title (GET library/info/video); one request per link. */
  const checkLink = (): Promise<LinkInfoState | null> => {
    const l = link.trim();
    setShown((s) => ({ ...s, link: errors.link }));
    if (!l || errors.link) return Promise.resolve(null);
    if (linkInfo?.link === l && !linkInfo.loading) return Promise.resolve(linkInfo);
    if (linkCheck.current?.link === l) return linkCheck.current.promise;
    setLinkInfo({ link: l, duration: null, title: null, loading: true, error: null });
    const promise = videoInfo(l).then(
      (info): LinkInfoState => ({ link: l, duration: info.duration, title: info.title, loading: false, error: null }),
      (e: unknown): LinkInfoState => ({ link: l, duration: null, title: null, loading: false, error: errorMessage(e) }),
    ).then((st) => {
      if (linkCheck.current?.link === l) linkCheck.current = null;
      setLinkInfo((cur) => (cur === null || cur.link === l ? st : cur));
      if (!nameTouched && st.title) setName((n) => n || nameFrom(st.title));
      return st;
    });
    linkCheck.current = { link: l, promise };
    return promise;
  };

  const needMinutes = () => {
    setGlobalError('paymentRequired');
    const action = paymentRequiredAction(paymentContextOf(user));
    if (action === 'buyMinutes') setBuyMinutes(true);
    else if (action === 'unknownError') setUnknownError(true);
    else navigate('/pricing', { state: { from: currentAppPath() } });
  };

  const submit = async () => {
    setSubmitError(null);
    let checked = { ...values };
    let nameNow = name.trim();
    if (source === 'link' && !errors.link && link.trim()) {
      // The link's length is needed for the minutes check: read it first when it is not known yet.
      const info = await checkLink();
      if (!info || info.error) return;
      checked = { ...checked, durationSec: info.duration };
      if (!nameNow && !nameTouched && info.title) nameNow = nameFrom(info.title);
    }
    const errs = validateCreateForm({ ...checked, name: nameNow }, credits);
    setShown(errs);
    if (hasErrors(errs)) return;
    if ((srcSrt && srcSrt.status !== 'done') || (dstSrt && dstSrt.status !== 'done')) {
      setSubmitError('Wait for the subtitle files to upload, or remove them');
      return;
    }
    const body: CreateTranscriptBody = { name: nameNow, src_lang: srcLang, dst_lang: dstLang };
    if (source === 'upload') body.media_id = values.mediaId!;
    else body.link = link.trim();
    if (speakers) body.num_speakers = Number(speakers);
    if (glossaryId) body.glossary_id = glossaryId;
    if (srcSrt?.mediaId) body.src_srt_media_id = srcSrt.mediaId;
    if (dstSrt?.mediaId) body.dst_srt_media_id = dstSrt.mediaId;
    setSubmitting(true);
    try {
      const project = await createTranscript(body);
      setSubmitting(false);
      reset();
      onCreated(project);
    } catch (e) {
      setSubmitting(false);
      // A 402 also runs the app-wide payment path (buy minutes, pricing or the Unknown Error modal).
      setSubmitError(isApiError(e) && e.status === 402 ? e.detailText ?? TEXT.noCredits : errorMessage(e));
    }
  };

  const show = (k: keyof CreateFormErrors) => shown[k] && errors[k];
  const glossaryOptions = [{ label: 'No dictionary', value: '' }, ...(glossaries ?? []).map((g) => ({ label: g.name || g.id, value: g.id }))];

  return (
    <Modal
      open={open}
      onClose={close}
      title="Translate a video"
      primaryAction={{ content: 'Start translation', onAction: submit, loading: submitting, disabled: submitting || (source === 'upload' && upload?.status === 'uploading') }}
      secondaryActions={[{ content: 'Cancel', onAction: close, disabled: submitting }]}
    >
      <Modal.Section>
        <BlockStack gap="400">
          <ButtonGroup variant="segmented">
            <Button pressed={source === 'upload'} onClick={() => setSource('upload')}>
              Upload a file
            </Button>
            <Button pressed={source === 'link'} onClick={() => setSource('link')}>
              Paste a link
            </Button>
          </ButtonGroup>

          {source === 'upload' ? (
            <BlockStack gap="200">
              <DropZone
                label="Video"
                accept="video/*,audio/*"
                type="file"
                allowMultiple={false}
                disabled={submitting}
                error={!!show('file')}
                onDrop={(_all, accepted) => {
                  if (accepted[0]) beginUpload(accepted[0]);
                }}
              >
                {upload ? (
                  <div style={{ padding: 16 }}>
                    <BlockStack gap="100">
                      <Text as="p" variant="bodyMd" fontWeight="semibold">{upload.file.name}</Text>
                      <Text as="p" variant="bodySm" tone="subdued">
                        {formatSize(upload.file.size)}
                        {localDur != null ? ` · ${Math.floor(localDur / 60)}:${String(Math.round(localDur % 60)).padStart(2, '0')}` : ''}
                        {' · drop another file to replace it'}
                      </Text>
                    </BlockStack>
                  </div>
                ) : (
                  <DropZone.FileUpload actionTitle="Choose a video" actionHint="or drop it here (MP4, MOV, WEBM, MP3, WAV)" />
                )}
              </DropZone>
              {upload && (
                <BlockStack gap="100">
                  <ProgressBar
                    progress={percent(upload.sent, upload.total)}
                    tone={upload.status === 'failed' ? 'critical' : upload.status === 'done' ? 'success' : 'highlight'}
                    size="small"
                    ariaLabelledBy="upload-progress-label"
                  />
                  <InlineStack align="space-between">
                    <Text as="span" variant="bodySm" tone={upload.status === 'failed' ? 'critical' : 'subdued'} id="upload-progress-label">
                      {upload.status === 'failed'
                        ? upload.error
                        : upload.status === 'done'
                          ? 'Uploaded'
                          : `Uploading ${percent(upload.sent, upload.total)}%`}
                    </Text>
                    {upload.status === 'failed' && (
                      <Button variant="plain" onClick={() => beginUpload(upload.file)}>
                        Try again
                      </Button>
                    )}
                  </InlineStack>
                </BlockStack>
              )}
              {show('file') && <Text as="p" tone="critical">{errors.file}</Text>}
            </BlockStack>
          ) : (
            <TextField
              label="Video link"
              placeholder="https://www.youtube.com/watch?v=..."
              helpText="YouTube, Google Drive or Vimeo"
              autoComplete="off"
              value={link}
              onChange={(v) => {
                setLink(v);
                setShown((s) => ({ ...s, link: undefined }));
              }}
              onBlur={() => void checkLink()}
              error={show('link') || linkInfo?.error || undefined}
              suffix={linkInfo?.loading ? <Spinner size="small" accessibilityLabel="Checking the link" /> : undefined}
            />
          )}

          <TextField
            label="Project name"
            autoComplete="off"
            value={name}
            onChange={(v) => {
              setName(v);
              setNameTouched(true);
            }}
            onBlur={() => setShown((s) => ({ ...s, name: errors.name }))}
            error={show('name') || undefined}
          />
          <InlineStack gap="400" wrap={false}>
            <div style={{ flex: 1 }}>
              <Select label="Source language" options={srcOptions} value={srcLang} onChange={setSrcLang} error={show('srcLang') || undefined} />
            </div>
            <div style={{ flex: 1 }}>
              <Select label="Target language" options={dstOptions} value={dstLang} onChange={setDstLang} error={(dstLang && srcLang === dstLang ? errors.dstLang : show('dstLang')) || undefined} />
            </div>
          </InlineStack>
          <Select label="Number of speakers" options={SPEAKER_OPTIONS} value={speakers} onChange={setSpeakers} />
          {glossaryOn && <Select label="Dictionary (optional)" options={glossaryOptions} value={glossaryId} onChange={setGlossaryId} />}
          {srtUpload && (
            <InlineStack gap="400" wrap={false}>
              <SrtPicker label="Source subtitles (optional)" state={srcSrt} onPick={(f) => uploadSrt(f, setSrcSrt)} onClear={() => setSrcSrt(null)} />
              <SrtPicker label="Target subtitles (optional)" state={dstSrt} onPick={(f) => uploadSrt(f, setDstSrt)} onClear={() => setDstSrt(null)} />
            </InlineStack>
          )}

          {durationSec != null && minutes.ok && (
            <Text as="p" tone="subdued" variant="bodySm">
              This video uses {minutes.needed} {minutes.needed === 1 ? 'minute' : 'minutes'} of your {formatMinutes(minutes.available)} available.
            </Text>
          )}
          {!minutes.ok && (
            <Banner tone="critical" title="Not enough minutes" action={{ content: 'Get more minutes', onAction: needMinutes }}>
              <p>{minutes.message}</p>
            </Banner>
          )}
          {submitError && (
            <Banner tone="critical" onDismiss={() => setSubmitError(null)}>
              <p>{submitError}</p>
            </Banner>
          )}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} kB`;
}

function formatMinutes(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function SrtPicker({ label, state, onPick, onClear }: { label: string; state: SrtState | null; onPick: (f: File) => void; onClear: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <div style={{ flex: 1 }}>
      <BlockStack gap="100">
        <Text as="span" variant="bodyMd">{label}</Text>
        <input
          ref={input}
          type="file"
          accept=".srt"
          hidden
          aria-label={label}
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) onPick(f);
            e.target.value = '';
          }}
        />
        {state ? (
          <InlineStack gap="200" blockAlign="center">
            <Text as="span" variant="bodySm" tone={state.status === 'failed' ? 'critical' : 'subdued'}>
              {state.status === 'uploading' ? `Uploading ${state.name}…` : state.status === 'failed' ? state.error : state.name}
            </Text>
            <Button variant="plain" onClick={onClear} accessibilityLabel={`Remove ${label}`}>
              Remove
            </Button>
          </InlineStack>
        ) : (
          <div>
            <Button onClick={() => input.current?.click()}>Choose .srt file</Button>
          </div>
        )}
      </BlockStack>
    </div>
  );
}
