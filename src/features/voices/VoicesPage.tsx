// /spaces/:spaceId/voices: the Voice Clone Library of a Teamspace. A voice is made from a recording (an audio file,
// or a video whose sound is taken) or from a speaker of one of the Teamspace's projects; it can be played at chosen
// settings, renamed, tuned (accent = similarity_boost, expressiveness = 1 - stability) and deleted. Without a
// cloning engine on the server the voices are made by voice matching, and the page says so.
import {
  Badge, Banner, BlockStack, Box, Button, Card, InlineGrid, InlineStack, Modal, RangeSlider, Select, Text, TextField,
} from '@shopify/polaris';
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import { useParams } from 'wouter';
import { VOICE_PRESET_MAX_LABEL, VOICE_SAMPLE_MAX_SEC, type VoicePreset } from '../../../contract/schemas/voice-preset';
import { useFeatureAvailable, useSettings } from '../../lib/api/use-settings';
import { errorMessage } from '../../lib/http';
import { useAsyncAction } from '../../lib/use-async-action';
import { currentSpaceIdAtom, upgradeModalAtom } from '../../lib/state';
import { EmptyPage, EmptyStateCard, PageFrame } from '../../ui/page';
import { showToast } from '../../ui/toasts';
import {
  createPreset, createPresetFromProject, deletePreset, markTutorialDisplayed, presetSample, renamePreset, updatePresetSettings, uploadSample,
  usePresetList, usePresetStatuses, useRefreshPresets, useSpaceProjects, useTutorialFlags,
} from './api';
import { languagePickerLabel } from '../../lib/format';
import { CastSection } from './CastSection';

const pct = (x: number) => Math.round(x * 100);

export default function VoicesPage() {
  const params = useParams<{ spaceId: string }>();
  const current = useAtomValue(currentSpaceIdAtom);
  const spaceId = params.spaceId ?? current;
  const available = useFeatureAvailable('voice_presets');
  const openUpgrade = useSetAtom(upgradeModalAtom);
  const list = usePresetList(spaceId, available);
  const presets = list.data?.presets ?? [];
  usePresetStatuses(spaceId, presets.filter((p) => p.status === 'processing').map((p) => p.id));
  const [creating, setCreating] = useState<'sample' | 'project' | null>(null);
  const tutorial = useTutorialFlags(available);

  if (!available) {
    return (
      <EmptyPage
        title="Voice Clone Library"
        heading="The Voice Clone Library is part of the Creator Pro plan"
        action={{ content: 'Upgrade', onAction: () => openUpgrade({ feature: 'voice_presets' }) }}
      >
        <Text as="p">Clone a speaker's voice from a recording or a project, tune its accent and expressiveness, and dub other videos with it.</Text>
      </EmptyPage>
    );
  }

  const limit = list.data?.limit ?? null;
  const used = list.data?.used ?? 0;
  const full = limit !== null && used >= limit;
  const matching = list.data?.engine === 'builtin';
  const what = matching ? 'voice' : 'clone';

  return (
    <PageFrame
      title="Voice Clone Library"
      subtitle="Voices made from your recordings and speakers, shared by everyone in this Teamspace."
      primaryAction={{ content: matching ? 'New voice from a recording' : 'Clone a voice from a recording', onAction: () => setCreating('sample'), disabled: full }}
      secondaryActions={[{ content: 'From a project speaker', onAction: () => setCreating('project'), disabled: full }]}
    >
      <BlockStack gap="400">
        {tutorial.data && !tutorial.data.voice_preset_tutorial_displayed && (
          <Banner
            title="How voices work"
            tone="info"
            onDismiss={() => void markTutorialDisplayed().then(() => tutorial.mutate())}
          >
            <Text as="p">
              Give a {what} a clear recording of one person talking (up to {VOICE_SAMPLE_MAX_SEC / 60} minutes), or take a speaker from one of your
              projects. Then choose it for a speaker in the editor: that speaker is dubbed with it. Accent sets how closely the voice follows the
              original speaker; expressiveness how much the pitch moves.
            </Text>
          </Banner>
        )}
        {matching && (
          <Banner tone="warning" title="Voice matching, not cloning">
            <Text as="p">
              No voice cloning engine is configured on this server. Voices are made by voice matching: a built-in voice of the same gender is
              moved toward the speaker's measured pitch, pitch range, timbre and pace. It sounds closer to the speaker, not like them.
            </Text>
          </Banner>
        )}
        {list.error && <Banner tone="critical">{errorMessage(list.error)}</Banner>}
        {list.data && (
          <Text as="p" tone="subdued">
            {limit === null ? `${used} ${what}${used === 1 ? '' : 's'} (no limit on your plan)` : `${used} of ${limit} ${what}s on your plan`}
            {full ? ': delete one to make another, or upgrade to Enterprise for no limit.' : ''}
          </Text>
        )}
        {list.data && presets.length === 0 && (
          <EmptyStateCard
            heading={matching ? 'No voices yet' : 'No voice clones yet'}
            action={{ content: 'Upload a recording', onAction: () => setCreating('sample') }}
            secondaryAction={{ content: 'Use a project speaker', onAction: () => setCreating('project') }}
          >
            <Text as="p">Upload a recording of one person talking (an audio file or a video), or take a speaker from one of your projects.</Text>
          </EmptyStateCard>
        )}
        {presets.map((p) => (
          <PresetCard key={p.id} preset={p} spaceId={spaceId!} />
        ))}
        {spaceId && <CastSection spaceId={spaceId} />}
      </BlockStack>
      <FromSampleModal open={creating === 'sample'} spaceId={spaceId!} onClose={() => setCreating(null)} />
      <FromProjectModal open={creating === 'project'} spaceId={spaceId!} onClose={() => setCreating(null)} />
    </PageFrame>
  );
}

function statusBadge(p: VoicePreset) {
  if (p.status === 'processing') return <Badge tone="attention">Processing</Badge>;
  if (p.status === 'error') return <Badge tone="critical">Failed</Badge>;
  return <Badge tone="success">Ready</Badge>;
}

function PresetCard({ preset, spaceId }: { preset: VoicePreset; spaceId: string }) {
  const refresh = useRefreshPresets();
  const { settings } = useSettings();
  const [label, setLabel] = useState(preset.label);
  const [labelError, setLabelError] = useState<string | null>(null);
  const [accent, setAccent] = useState(pct(preset.similarity_boost));
  const [expressiveness, setExpressiveness] = useState(pct(1 - preset.stability));
  const [language, setLanguage] = useState('en');
  const [busy, setBusy] = useState<string | null>(null);
  const [confirm, setConfirm] = useState(false);
  const [playing, setPlaying] = useState(false);
  const audio = useRef<HTMLAudioElement | null>(null);
  useEffect(() => setLabel(preset.label), [preset.label]);
  useEffect(() => () => audio.current?.pause(), []);

  const languages = (settings?.languages?.translation ?? []).map((l) => ({ label: languagePickerLabel(l.value, l.label), value: l.value }));
  const langOptions = languages.length ? languages : [{ label: 'English', value: 'en' }];
  // the sample's language: the chosen one when offered, else the first language offered
  const sampleLang = langOptions.some((l) => l.value === language) ? language : langOptions[0]!.value;
  const changed = accent !== pct(preset.similarity_boost) || expressiveness !== pct(1 - preset.stability);
  const ready = preset.status === 'done';
  const chosen = { similarity_boost: accent / 100, stability: (100 - expressiveness) / 100 };

  const rename = async () => {
    const l = label.trim();
    if (l === preset.label) return setLabelError(null);
    if (!l) return setLabelError('Field is required');
    try {
      await renamePreset(preset.id, l);
      setLabelError(null);
      await refresh(spaceId);
    } catch (e) {
      setLabelError(errorMessage(e));
      setLabel(preset.label);
    }
  };
  const run = async (what: string, fn: () => Promise<unknown>) => {
    setBusy(what);
    try {
      await fn();
    } catch (e) {
      showToast(errorMessage(e), { error: true });
    } finally {
      setBusy(null);
    }
  };
  const play = () =>
    run('play', async () => {
      if (playing) {
        audio.current?.pause();
        setPlaying(false);
        return;
      }
      const blob = await presetSample(preset.id, { language: sampleLang, ...chosen });
      audio.current?.pause();
      const a = new Audio(URL.createObjectURL(blob));
      audio.current = a;
      a.onended = () => setPlaying(false);
      setPlaying(true);
      await a.play().catch(() => setPlaying(false));
    });

  const p = preset.profile;
  return (
    <div data-preset={preset.id}>
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center" gap="200">
          <div style={{ flex: 1, minWidth: 0 }}>
            <TextField
              label="Name"
              labelHidden
              autoComplete="off"
              value={label}
              maxLength={VOICE_PRESET_MAX_LABEL}
              onChange={setLabel}
              onBlur={() => void rename()}
              error={labelError ?? undefined}
            />
          </div>
          {statusBadge(preset)}
        </InlineStack>
        {preset.status === 'error' && <Banner tone="critical">{preset.error ?? 'The voice could not be made'}</Banner>}
        {p && (
          <Text as="p" tone="subdued">
            {p.gender === 'female' ? 'Female' : 'Male'} voice · pitch {Math.round(p.median_hz)} Hz (range {p.range_st.toFixed(1)} semitones) ·{' '}
            {p.speech_rate.toFixed(1)} syllables/s · from {Math.round(preset.sample_duration ?? p.speech_sec)} s of speech
            {preset.engine === 'builtin' ? ' · voice matching' : ' · cloned'}
          </Text>
        )}
        <InlineGrid columns={2} gap="400">
          <RangeSlider label="Accent" helpText="How closely the voice follows the original speaker" value={accent} min={0} max={100}
            output onChange={(v) => setAccent(v as number)} disabled={!ready} />
          <RangeSlider label="Expressiveness" helpText="How much the pitch moves" value={expressiveness} min={0} max={100}
            output onChange={(v) => setExpressiveness(v as number)} disabled={!ready} />
        </InlineGrid>
        <InlineStack gap="200" blockAlign="end" align="space-between">
          <InlineStack gap="200" blockAlign="end">
            <Box minWidth="160px">
              <Select label="Sample language" options={langOptions} value={sampleLang} onChange={setLanguage} disabled={!ready} />
            </Box>
            <Button onClick={() => void play()} disabled={!ready} loading={busy === 'play'}>
              {playing ? 'Stop' : 'Play sample'}
            </Button>
          </InlineStack>
          <InlineStack gap="200">
            <Button
              variant="primary"
              disabled={!changed || !ready}
              loading={busy === 'save'}
              onClick={() => void run('save', async () => {
                await updatePresetSettings(preset.id, chosen);
                await refresh(spaceId);
                showToast('Settings saved: projects using this voice re-voice it on their next generate');
              })}
            >
              Save settings
            </Button>
            <Button tone="critical" onClick={() => setConfirm(true)} disabled={preset.status === 'processing'}>
              Delete
            </Button>
          </InlineStack>
        </InlineStack>
      </BlockStack>
      <Modal
        open={confirm}
        onClose={() => setConfirm(false)}
        title={`Delete "${preset.label}"?`}
        primaryAction={{
          content: 'Delete voice',
          destructive: true,
          loading: busy === 'delete',
          onAction: () => void run('delete', async () => {
            await deletePreset(preset.id);
            setConfirm(false);
            await refresh(spaceId);
          }),
        }}
        secondaryActions={[{ content: 'Cancel', onAction: () => setConfirm(false) }]}
      >
        <Modal.Section>
          <Text as="p">Speakers dubbed with this voice will need another voice before their next generate. This cannot be undone.</Text>
        </Modal.Section>
      </Modal>
    </Card>
    </div>
  );
}

function FromSampleModal({ open, spaceId, onClose }: { open: boolean; spaceId: string; onClose: () => void }) {
  const refresh = useRefreshPresets();
  const [label, setLabel] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const { busy, error, setError, run } = useAsyncAction();
  const close = () => {
    setLabel('');
    setFile(null);
    setError(null);
    onClose();
  };
  const submit = async () => {
    if (!label.trim()) return setError('Give the voice a name');
    if (!file) return setError('Choose a recording');
    const ok = await run(async () => {
      const media = await uploadSample(file);
      if (media.status !== 'uploaded') throw new Error(media.error ?? 'The file could not be read');
      await createPreset({ label: label.trim(), media_id: media.id });
      await refresh(spaceId);
    });
    if (ok) close();
  };
  return (
    <Modal
      open={open}
      onClose={close}
      title="New voice from a recording"
      primaryAction={{ content: 'Create voice', onAction: () => void submit(), loading: busy }}
      secondaryActions={[{ content: 'Cancel', onAction: close }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          {error && <Banner tone="critical">{error}</Banner>}
          <TextField label="Name" autoComplete="off" value={label} onChange={setLabel} maxLength={VOICE_PRESET_MAX_LABEL} />
          <label>
            <Text as="span">Recording (audio, or a video whose sound is used; one person talking, at most {VOICE_SAMPLE_MAX_SEC / 60} minutes)</Text>
            <input
              type="file"
              accept="audio/*,video/*,.wav,.mp3,.m4a,.mp4,.mov,.webm"
              aria-label="Recording"
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
              style={{ display: 'block', marginTop: 8 }}
            />
          </label>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}

function FromProjectModal({ open, spaceId, onClose }: { open: boolean; spaceId: string; onClose: () => void }) {
  const refresh = useRefreshPresets();
  const projects = useSpaceProjects(spaceId, open);
  const withSpeakers = (projects.data?.data ?? []).filter((p) => p.speakers.length > 0);
  const [projectId, setProjectId] = useState('');
  const [speakerId, setSpeakerId] = useState('');
  const [label, setLabel] = useState('');
  const { busy, error, setError, run } = useAsyncAction();
  const project = withSpeakers.find((p) => p.id === projectId) ?? withSpeakers[0];
  const speaker = project?.speakers.find((s) => s.id === speakerId) ?? project?.speakers[0];
  const close = () => {
    setError(null);
    setLabel('');
    onClose();
  };
  const submit = async () => {
    if (!project || !speaker) return;
    const ok = await run(async () => {
      await createPresetFromProject({ project_id: project.id, speaker_id: speaker.id, ...(label.trim() ? { label: label.trim() } : {}) });
      await refresh(spaceId);
    });
    if (ok) close();
  };
  return (
    <Modal
      open={open}
      onClose={close}
      title="New voice from a project speaker"
      primaryAction={{ content: 'Create voice', onAction: () => void submit(), loading: busy, disabled: !speaker }}
      secondaryActions={[{ content: 'Cancel', onAction: close }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          {error && <Banner tone="critical">{error}</Banner>}
          {projects.data && withSpeakers.length === 0 && <Text as="p">No project of this Teamspace has speakers yet.</Text>}
          {project && (
            <>
              <Select label="Project" options={withSpeakers.map((p) => ({ label: p.name, value: p.id }))} value={project.id}
                onChange={(v) => { setProjectId(v); setSpeakerId(''); }} />
              <Select label="Speaker" options={project.speakers.map((s) => ({ label: s.name, value: s.id }))} value={speaker?.id ?? ''} onChange={setSpeakerId} />
              <TextField label="Name" autoComplete="off" value={label} onChange={setLabel} placeholder={speaker ? `${speaker.name} (${project.name})` : ''}
                maxLength={VOICE_PRESET_MAX_LABEL} />
            </>
          )}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
