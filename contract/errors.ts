// User-facing texts of spec sections 5 and 8. One copy, used by both sides.
export const TEXT = {
  allLanguagesPlayerTitle: 'All languages (HLS)',
  allLanguagesAudio: 'Audio language',
  allLanguagesHlsLink: 'Streaming link (HLS, valid for a few hours):',
  allLanguagesNone: 'No language is dubbed yet',
  // Batches (src/features/batches)
  batchTitle: 'Translate many videos',
  batchOpen: 'Translate many videos',
  batchStart: 'Start batch',
  batchGenerate: 'Generate the dubbed videos when ready (minutes are debited per video and language)',
  batchLinksHelp: 'One YouTube, Google Drive or Vimeo link per line',
  batchNothing: 'Add videos or links',
  batchDownload: 'Download all (ZIP)',
  batchCancel: 'Cancel batch',
  batchRetry: 'Retry',
  fieldRequired: 'Field is required',
  variantOneVocabulary: 'The voice speaks {language}; the translation engine has one vocabulary for the language, not this region\'s.',
  incorrectEmail: 'Incorrect email',
  emailAlreadyAdded: 'This email is already added',
  emailsDontMatch: "Email addresses don't match",
  passwordTooShort: 'At least 6 characters',
  incorrectPassword: 'Incorrect password',
  incorrectLink: 'Please provide correct link',
  segmentSaveFailed: "We couldn't save the segment. Please try again",
  unknownError: (email: string) => `Please contact the support chat or email us at ${email}.`,
  genericPage:
    'Something went wrong. We are already working to fix this. Please refresh the page or try again later.',
  genericTitle: 'Something went wrong',
  refreshPage: 'Refresh page',
  serverError: 'Server error. Please try again later',
  gatewayTimeout: 'Gateway Timeout',
  inactiveUser: 'Inactive user',
  noAccess: 'You have no access to this resource',
  noCredits: 'no credits available',
  creditsSuffix: 'credits available.',
  maintenanceTitle: 'We are down for an upgrade and will be back shortly',
  discardTitle: 'You have unsaved changes',
  discardSubtitle: 'If you exit now, your changes will be lost.',
  discardCancel: 'Cancel',
  discardConfirm: 'Discard changes',
  invalidCredentials: 'Incorrect email or password',
  tooManyAttempts: 'Too many attempts. Please try again later',
  // embedded app bridge
  embedTokenFailed: 'failed to get session token. please try again later',
  embedTimeout: 'request timeout',
  embedUnsupportedAuth: 'Unsupported auth type...',
  embedInvalidUrl: 'Invalid URL',
  embedRequestFailed: 'Request failed',
  embedRedirectNotAllowed: 'This URL is not allowed for redirection',
  embedBusy: 'Please wait for another async method to return before trying again.',
  // the cast of a Teamspace (issue 31, part 5)
  castTitle: 'Cast',
  castHelp: 'People who speak in your videos. A new project\'s speaker who sounds like one of them gets their name and voice.',
  castEmpty: 'No one in the cast yet: choose "Keep in cast" on a speaker in the editor.',
  castKeep: 'Keep in cast',
  castKept: 'Kept in cast',
  castRecognisedPrefix: 'Recognised as',
  castRecognisedSuffix: 'from your cast',
  castUndo: 'Undo',
  castVoiceFollows: (name: string) => `A voice you choose here becomes ${name}'s voice for this language in your cast.`,
  castMergeInto: 'Merge into',
  castRemove: 'Remove',
} as const;

/** The embedded app's own error texts (App Bridge: session token, navigation): shown as they are. */
export const EMBED_ERROR_TEXTS: ReadonlySet<string> = new Set([
  TEXT.embedTokenFailed,
  TEXT.embedTimeout,
  TEXT.embedUnsupportedAuth,
  TEXT.embedInvalidUrl,
  TEXT.embedRequestFailed,
  TEXT.embedRedirectNotAllowed,
  TEXT.embedBusy,
]);

/** Maintenance banner: "unavailable from {h:mm am/pm} for 30 minutes". */
export function maintenanceText(timeIso: string, minutes = 30): string {
  const d = new Date(timeIso);
  if (Number.isNaN(d.getTime())) return `The service will be unavailable for ${minutes} minutes`;
  let h = d.getHours();
  const m = d.getMinutes();
  const suffix = h >= 12 ? 'pm' : 'am';
  h = h % 12;
  if (h === 0) h = 12;
  return `The service will be unavailable from ${h}:${String(m).padStart(2, '0')} ${suffix} for ${minutes} minutes`;
}
