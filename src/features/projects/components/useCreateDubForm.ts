// The "Translate a video" form's state: the source (upload, link or the shop's store), the languages and options,
// the video's length and the minutes it needs, validation (errors shown once a field is left or on submit), and
// submitting (creates the project; a link's length is read first).
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { TEXT } from '../../../../contract/errors';
import { isFeatureAvailable, type FeatureKey } from '../../../../contract/features';
import type { Project } from '../../../../contract/schemas/project';
import type { Settings } from '../../../../contract/schemas/settings';
import type { Credits } from '../../../../contract/schemas/space';
import { deviceTypeAtom, getMoreMinutesAtom, upgradeModalAtom } from '../../../lib/state';
import { errorMessage, isApiError } from '../../../lib/http';
import { parseWordList } from '../../../lib/word-list';
import { createTranscript, useGlossaries, videoInfo, type CreateTranscriptBody } from '../api';
import { hasErrors, nameFrom, validateCreateForm, type CreateFormErrors, type SourceKind } from '../lib/create-form';
import { languageOptions } from '../lib/languages';
import { checkMinutes } from '../lib/minutes';
import { useVideoUpload } from '../hooks/useVideoUpload';
import { useSrtUpload } from './SrtPicker';
import { useIsShopSpace } from './StoreVideosTab';

type LinkInfoState = { link: string; duration: number | null; title: string | null; loading: boolean; error: string | null };

/** What the create dialog is given (its props). */
export interface CreateDubFormProps {
  open: boolean;
  onClose: () => void;
  spaceId: string;
  settings: Settings | undefined;
  credits: Credits | undefined;
  onCreated: (p: Project) => void;
}

export function useCreateDubForm({ open, onClose, spaceId, settings, credits, onCreated }: CreateDubFormProps) {
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
  const [linkInfo, setLinkInfo] = useState<LinkInfoState | null>(null);
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

  /** A field's error, once it is to be shown (left the field, or submitted). */
  const show = (k: keyof CreateFormErrors) => shown[k] && errors[k];
  const glossaryOptions = [{ label: 'No dictionary', value: '' }, ...(glossaries ?? []).map((g) => ({ label: g.name || g.id, value: g.id }))];

  return {
    // what the plan allows
    srtUpload, glossaryOn, multiOn, multiLocked, isShop, srcOptions, dstOptions, glossaryOptions,
    // the fields
    source, setSource, store, setStore, name, setName, setNameTouched, link, setLink, linkInfo, srcLang, setSrcLang, dstLang, setDstLang,
    extraLangs, setExtraLangs, speakers, setSpeakers, glossaryId, setGlossaryId, srcText, setSrcText, moreOpen, setMoreOpen,
    wordsText, setWordsText, wordList, upload, localDur, srcSrt, dstSrt, srcSrtSlot, dstSrtSlot,
    // validation, minutes, submitting
    durationSec, errors, show, setShown, minutes, noMinutes, needMinutes, setUpgrade, submitting, submitError, setSubmitError,
    reset, close, beginUpload, checkLink, submit,
  };
}

/** The create form's state and actions (useCreateDubForm), handed to the form's parts. */
export type CreateDubForm = ReturnType<typeof useCreateDubForm>;
