// Validation of the create-dub form (spec section 5): required fields, the link rule, languages, minutes.
import { TEXT } from '../../../../contract/errors';
import { videoLinkError } from '../../../../contract/links';
import type { Credits } from '../../../../contract/schemas/space';
import { checkMinutes } from './minutes';

export type SourceKind = 'upload' | 'link';

export interface CreateFormValues {
  source: SourceKind;
  name: string;
  link: string;
  /** Media id once the upload finished. */
  mediaId: string | null;
  uploading: boolean;
  srcLang: string;
  dstLang: string;
  /** Length of the video in seconds once known (local file, upload or link info). */
  durationSec: number | null;
}

export type CreateFormErrors = Partial<Record<'name' | 'link' | 'file' | 'srcLang' | 'dstLang' | 'minutes', string>>;

export const SAME_LANGUAGE = 'Choose a target language different from the source language';
export const WAIT_FOR_UPLOAD = 'Wait until the upload has finished';
export const NAME_MAX = 200;

export function validateCreateForm(v: CreateFormValues, credits: Credits | null | undefined): CreateFormErrors {
  const e: CreateFormErrors = {};
  if (!v.name.trim()) e.name = TEXT.fieldRequired;
  else if (v.name.trim().length > NAME_MAX) e.name = `At most ${NAME_MAX} characters`;
  if (v.source === 'link') {
    if (!v.link.trim()) e.link = TEXT.fieldRequired;
    else {
      const le = videoLinkError(v.link);
      if (le) e.link = le;
    }
  } else if (v.uploading) e.file = WAIT_FOR_UPLOAD;
  else if (!v.mediaId) e.file = TEXT.fieldRequired;
  if (!v.srcLang) e.srcLang = TEXT.fieldRequired;
  if (!v.dstLang) e.dstLang = TEXT.fieldRequired;
  else if (v.srcLang && v.srcLang === v.dstLang) e.dstLang = SAME_LANGUAGE;
  const m = checkMinutes(credits, v.durationSec);
  if (!m.ok && m.message) e.minutes = m.message;
  return e;
}

export function hasErrors(e: CreateFormErrors): boolean {
  return Object.values(e).some(Boolean);
}

/** A project name from a file name or a link title. */
export function nameFrom(s: string | null | undefined): string {
  const base = (s ?? '').replace(/\.[a-z0-9]{2,5}$/i, '').replace(/[_]+/g, ' ').trim();
  return base.slice(0, NAME_MAX);
}
