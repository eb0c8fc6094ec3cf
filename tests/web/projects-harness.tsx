// Shared fixtures and render helper of the projects/editor web tests: the app's providers with a memory
// router, an isolated SWR cache, a stub auth provider and default msw answers for the app-wide calls.
import { render } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { ReactNode } from 'react';
import { vi } from 'vitest';
import { Route } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import type { Project, Segment } from '../../contract/schemas/project';
import type { Language, Settings } from '../../contract/schemas/settings';
import type { Credits } from '../../contract/schemas/space';
import { AppProviders } from '../../src/app/providers';
import { currentSpaceIdAtom } from '../../src/lib/state';
import { resetAppStore } from '../../src/lib/store';
import type { AnyAuthProvider } from '../../src/lib/auth/types';
import { server } from './msw';

export const SPACE = '11111111-1111-4111-8111-111111111111';

export function stubProvider(): AnyAuthProvider {
  return {
    kind: 'identity',
    getToken: async () => 'tok',
    signOut: vi.fn(async () => {}),
    isAuthenticated: () => true,
    getEmail: () => 'a@b.c',
    subscribe: () => () => {},
    signIn: vi.fn(),
    signUp: vi.fn(),
    getOidcConfig: vi.fn(),
    oidcStartUrl: () => '',
    completeOidcCallback: () => '/',
  } as unknown as AnyAuthProvider;
}

export function lang(id: number, value: string, cc: string, label: string): Language {
  return {
    id, value, label, translation_label: label, country_code: cc, country_label: cc, is_dialect: false, is_free: false,
    is_glossary_available: false, is_voice_preset_available: false, mean_char_per_syllable: 3, speech_rate: 1,
    speech_tempo_feature: false, voice_clone: false, voice_clone_beta: false, voice_clone_label: null,
    voice_preset_dialect: null, voice_preset_dialect_label: null,
  };
}

export const SETTINGS: Settings = {
  kind: 'space',
  features: { maintenance: false, warning: null },
  languages: {
    transcription: [lang(1, 'en', 'US', 'English')],
    translation: [lang(1, 'en', 'US', 'English'), lang(2, 'es', 'ES', 'Spanish'), lang(3, 'fr', 'FR', 'French')],
  },
  scope_settings: {
    available_features: {} as Settings['scope_settings']['available_features'],
    max_video_download_duration: 3600,
    max_video_size: 1e9,
    max_video_duration: 3600,
  },
  surveys: [],
  white_label: false,
};

export const credits = (total: number, used = 0): Credits => ({
  minutes: { total, used }, video: { total: 0, used: 0 }, lipsync_free_minutes: 0,
});

export function project(over: Partial<Project> = {}): Project {
  return {
    id: 'p1', name: 'Project one', created_date: new Date().toISOString(), space_id: SPACE, folder_id: null,
    status: 'translation_done', progress: 100, error_message: null, prompt: null, src_lang: 'en', dst_lang: 'es',
    duration: 120, glossary_id: null, src_srt_uploaded: false, dst_srt_uploaded: false, free_dubbing: false,
    tts_provider: null, cover: null, original_video: null, translated_audio: null, translated_video: null, voiceover: null,
    translation_srt_path: null, translation_vtt_path: null, lipsync_info: { lipsync_result_path: null },
    subtitles_info: { subtitles_burn_result_path: null, subtitles_lipsync_burn_result_path: null },
    speakers: [{ id: 'S1', name: 'Speaker 1', voice_id: null, gender: null }], changed_segments: 0,
    ...over,
  };
}

export function segment(i: number, over: Partial<Segment> = {}): Segment {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    start: i * 2, end: i * 2 + 1.5, speaker: 'S1',
    src: { lang: 'en', text: `source ${i}` }, dst: { lang: 'es', text: `translation ${i}` }, status: 'done',
    ...over,
  };
}

/** msw answers for what the app shell's hooks ask (user, settings, credits, folders, voices). */
export function appHandlers(o: { credits?: Credits; settings?: Settings } = {}) {
  return [
    http.get('*/api/users/current', () =>
      HttpResponse.json({ id: 'u1', email: 'a@b.c', is_superuser: false, subscription: null, onboarding: [], feature_groups: [] }),
    ),
    http.get('*/api/settings', () => HttpResponse.json(o.settings ?? SETTINGS)),
    http.get('*/api/space/:id/credits', () => HttpResponse.json(o.credits ?? credits(100))),
    http.get('*/api/project/folders', () => HttpResponse.json({ data: [] })),
  ];
}

export function renderRoute(pattern: string, path: string, ui: ReactNode) {
  const store = resetAppStore();
  store.set(currentSpaceIdAtom, SPACE);
  const [pathname, search = ''] = path.split('?');
  const mem = memoryLocation({ path: pathname, searchPath: search, record: true });
  const utils = render(
    <AppProviders provider={stubProvider()} store={store} router={{ hook: mem.hook, searchHook: mem.searchHook }} swrProvider={() => new Map()}>
      <Route path={pattern}>{ui}</Route>
    </AppProviders>,
  );
  return { ...utils, mem, store };
}

export { server };
