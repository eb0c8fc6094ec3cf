// Creating a dub: upload a video (tus, resumes after a dropped connection) or paste a link, choose the
// languages, optionally source/target SRT files, a dictionary and (under More options) the words recognition should
// listen for, check the minutes, start.
import {
  Banner, BlockStack, Button, ButtonGroup, DropZone, InlineStack, Modal, ProgressBar, Select, Spinner, Tag, Text, TextField,
} from '@shopify/polaris';
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { TEXT } from '../../../../contract/errors';
import { isFeatureAvailable, type FeatureKey } from '../../../../contract/features';
import type { Project } from '../../../../contract/schemas/project';
import type { Settings } from '../../../../contract/schemas/settings';
import type { Credits } from '../../../../contract/schemas/space';
import { deviceTypeAtom, getMoreMinutesAtom, upgradeModalAtom } from '../../../lib/state';
import { errorMessage, isApiError } from '../../../lib/http';
import { parseWordList } from '../../../lib/wordList';
import { createTranscript, useGlossaries, videoInfo, type CreateTranscriptBody } from '../api';
import { hasErrors, nameFrom, validateCreateForm, type CreateFormErrors, type SourceKind } from '../lib/createForm';
import { languageOptions } from '../lib/languages';
import { groupLanguageOptions } from '../../../lib/format';
import { checkMinutes } from '../lib/minutes';
import { isFileProblem, UPLOAD_TEXTS, uploadPercent, useVideoUpload } from '../hooks/useVideoUpload';
import { SrtPicker, useSrtUpload } from './SrtPicker';
import { SourceTextField } from './SourceTextField';
import { StoreVideosTab, useIsShopSpace } from './StoreVideosTab';

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

export function CreateDubModal({ open, onClose, spaceId, settings, credits, onCreated }: CreateDubModalProps) {
  const device = useAtomValue(deviceTypeAtom);
  const features = settings?.scope_settings.available_features;
  const feature = (k: FeatureKey) => isFeatureAvailable(features?.[k], device);
  const srtUpload = feature('srt_upload');
  const glossaryOn = feature('glossary');
  const tusOn = features?.tus ? features.tus.enabled : true;
  const multiOn = feature('multilanguage');
  const multiLocked = !multiOn && !!features?.multilanguage?.visible;

  const srcOptions = useMemo(() => languageOptions(settings?.languages.transcription ?? []), [settings]);
  const dstOptions = useMemo(
    () => languageOptions(settings?.languages.translation ?? [], { translation: true, freeLanguages: feature('free_languages') }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [settings, device],
  );

  const [source, setSource] = useState<SourceKind>('upload');
  /** "From your store" (a shop Teamspace in the platform's admin): StoreVideosTab instead of the form. */
  const [store, setStore] = useState(false);
  const isShop = useIsShopSpace(spaceId, open);
  const [name, setName] = useState('');
  const [nameTouched, setNameTouched] = useState(false);
  const [link, setLink] = useState('');
  const [linkInfo, setLinkInfo] = useState<{ link: string; duration: number | null; title: string | null; loading: boolean; error: string | null } | null>(null);
  const [srcLang, setSrcLang] = useState('');
  const [dstLang, setDstLang] = useState('');
  /** More target languages (plan feature multilanguage): one project per language, one analysis. */
  const [extraLangs, setExtraLangs] = useState<string[]>([]);
  const [speakers, setSpeakers] = useState('');
  const [glossaryId, setGlossaryId] = useState('');
  /** A plain-text source transcript (aligned to the speech instead of recognised). */
  const [srcText, setSrcText] = useState('');
  /** More options (collapsed): the words speech recognition should listen for, one a line. */
  const [moreOpen, setMoreOpen] = useState(false);
  const [wordsText, setWordsText] = useState('');
  const wordList = useMemo(() => parseWordList(wordsText), [wordsText]);
  const video = useVideoUpload({ spaceId, tus: tusOn });
  const { upload, duration: localDur } = video;
  const srcSrtSlot = useSrtUpload();
  const dstSrtSlot = useSrtUpload();
  const srcSrt = srcSrtSlot.state;
  const dstSrt = dstSrtSlot.state;
  const [shown, setShown] = useState<CreateFormErrors>({});
  const [submitting, setSubmitting] = useState(false);
  const [submitError, setSubmitError] = useState<string | null>(null);

  const { data: glossaries } = useGlossaries(spaceId, srcLang, dstLang, glossaryOn && open);
  const setUpgrade = useSetAtom(upgradeModalAtom);

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
  const setMoreMinutes = useSetAtom(getMoreMinutesAtom);
  const minutes = checkMinutes(credits, durationSec);

  const reset = () => {
    video.reset();
    setSource('upload');
    setStore(false);
    setName('');
    setNameTouched(false);
    setLink('');
    setLinkInfo(null);
    srcSrtSlot.clear();
    dstSrtSlot.clear();
    setShown({});
    setSubmitError(null);
    setGlossaryId('');
    setSrcText('');
    setSpeakers('');
    setExtraLangs([]);
    setWordsText('');
    setMoreOpen(false);
  };
  const close = () => {
    if (submitting) return;
    reset();
    onClose();
  };

  const beginUpload = (file: File) => {
    setShown((st) => ({ ...st, file: undefined }));
    if (!nameTouched) setName(nameFrom(file.name));
    video.begin(file);
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

  // More minutes open in place, over this dialog (it stays open with what was entered).
  const needMinutes = () => setMoreMinutes(true);
  const noMinutes = !!credits && credits.minutes.total - credits.minutes.used <= 0;

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
    if (wordList.error) {
      setMoreOpen(true);
      return;
    }
    const others = multiOn ? extraLangs.filter((l) => l !== dstLang && l !== srcLang) : [];
    const body: CreateTranscriptBody = { name: nameNow, src_lang: srcLang, dst_lang: dstLang };
    if (others.length > 0) body.dst_langs = [dstLang, ...others];
    if (source === 'upload') body.media_id = values.mediaId!;
    else body.link = link.trim();
    if (speakers) body.num_speakers = Number(speakers);
    if (glossaryId) body.glossary_id = glossaryId;
    if (srcSrt?.mediaId) body.src_srt_media_id = srcSrt.mediaId;
    else if (srcText.trim()) body.src_text = srcText;
    if (dstSrt?.mediaId) body.dst_srt_media_id = dstSrt.mediaId;
    if (wordList.words.length > 0) body.asr_words = wordList.words;
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
      primaryAction={store ? undefined : { content: 'Start translation', onAction: submit, loading: submitting, disabled: submitting || noMinutes || !minutes.ok || (source === 'upload' && upload?.status === 'uploading') }}
      secondaryActions={[{ content: 'Cancel', onAction: close, disabled: submitting }]}
      footer={noMinutes || !minutes.ok ? <Text as="span" tone="critical" variant="bodySm">{noMinutes ? 'No minutes left to start a translation' : 'Not enough minutes for this video'}</Text> : undefined}
    >
      <Modal.Section>
        <BlockStack gap="400">
          {noMinutes ? (
            <Banner tone="warning" title="You have no minutes left" action={{ content: 'Get more minutes', onAction: needMinutes }}>
              <p>Starting a translation uses one minute per minute of video. Get more minutes to start this one.</p>
            </Banner>
          ) : null}
          <ButtonGroup variant="segmented">
            <Button pressed={!store && source === 'upload'} onClick={() => { setStore(false); setSource('upload'); }}>
              Upload a file
            </Button>
            <Button pressed={!store && source === 'link'} onClick={() => { setStore(false); setSource('link'); }}>
              Paste a link
            </Button>
            {isShop && <Button pressed={store} onClick={() => setStore(true)}>From your store</Button>}
          </ButtonGroup>
          {store ? (
            <StoreVideosTab spaceId={spaceId} srcOptions={srcOptions} dstOptions={dstOptions} multiOn={multiOn} onCreated={(p) => { reset(); onCreated(p); }} onBatch={() => { reset(); onClose(); }} />
          ) : (<>

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
                    progress={uploadPercent(upload.sent, upload.total)}
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
                          : `Uploading ${uploadPercent(upload.sent, upload.total)}%`}
                    </Text>
                    {upload.status === 'failed' && !isFileProblem(upload.error) && (
                      <Button variant="plain" onClick={() => beginUpload(upload.file)}>
                        Try again
                      </Button>
                    )}
                  </InlineStack>
                  {upload.status === 'failed' && isFileProblem(upload.error) ? (
                    <Text as="p" variant="bodySm" tone="subdued">{UPLOAD_TEXTS.formats}</Text>
                  ) : null}
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
              <Select
                label="Target language"
                options={groupLanguageOptions(dstOptions)}
                value={dstLang}
                onChange={setDstLang}
                helpText={dstOptions.find((o) => o.value === dstLang)?.note}
                error={(dstLang && srcLang === dstLang ? errors.dstLang : show('dstLang')) || undefined}
              />
            </div>
          </InlineStack>
          {multiOn && (
            <BlockStack gap="200">
              <Select
                label="More target languages (optional)"
                helpText="One upload and one transcript: each language becomes its own project, listed under this one."
                options={[
                  { label: 'Add a language…', value: '' },
                  ...groupLanguageOptions(dstOptions.filter((o) => o.value !== srcLang && o.value !== dstLang && !extraLangs.includes(o.value))),
                ]}
                value=""
                onChange={(v) => v && setExtraLangs((l) => (l.includes(v) || l.length >= 9 ? l : [...l, v]))}
              />
              {extraLangs.length > 0 && (
                <InlineStack gap="200">
                  {extraLangs.map((l) => (
                    <Tag key={l} onRemove={() => setExtraLangs((x) => x.filter((y) => y !== l))} accessibilityLabel={`Remove ${labelOf(dstOptions, l)}`}>
                      {labelOf(dstOptions, l)}
                    </Tag>
                  ))}
                </InlineStack>
              )}
              {extraLangs.length > 0 && (
                <Text as="p" tone="subdued" variant="bodySm">
                  {extraLangs.length + 1} projects: each dub is charged when you generate it.
                </Text>
              )}
            </BlockStack>
          )}
          {multiLocked && (
            <div>
              <Button variant="plain" onClick={() => setUpgrade({ feature: 'multilanguage' })}>
                Translate into several languages at once
              </Button>
            </div>
          )}
          <Select label="Number of speakers" options={SPEAKER_OPTIONS} value={speakers} onChange={setSpeakers} />
          {glossaryOn && <Select label="Dictionary (optional)" options={glossaryOptions} value={glossaryId} onChange={setGlossaryId} />}
          {srtUpload && (
            <InlineStack gap="400" wrap={false}>
              <SrtPicker label="Source subtitles (optional)" state={srcSrt} onPick={srcSrtSlot.pick} onClear={srcSrtSlot.clear} />
              <SrtPicker label="Target subtitles (optional)" state={dstSrt} onPick={dstSrtSlot.pick} onClear={dstSrtSlot.clear} />
            </InlineStack>
          )}
          {srtUpload && <SourceTextField value={srcText} onChange={setSrcText} disabled={!!srcSrt} />}
          <div>
            <Button variant="plain" disclosure={moreOpen ? 'up' : 'down'} onClick={() => setMoreOpen((o) => !o)} ariaExpanded={moreOpen} ariaControls="create-more-options">
              More options
            </Button>
          </div>
          {moreOpen && (
            <div id="create-more-options">
              <TextField
                label="Words to listen for (names, products, places — one per line)"
                helpText="Optional. Speech recognition is told these words, so names it does not know are written as you spell them."
                autoComplete="off"
                multiline={4}
                value={wordsText}
                onChange={setWordsText}
                error={wordList.error ?? undefined}
                disabled={submitting}
              />
            </div>
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
          </>)}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}

function labelOf(options: Array<{ label: string; value: string }>, value: string): string {
  return options.find((o) => o.value === value)?.label ?? value.toUpperCase();
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} kB`;
}

function formatMinutes(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
