// Speakers: rename, pick a voice of the target language per speaker (stock voices, the Teamspace's voice clones
// and the speaker's instant clone), make an instant clone of a speaker, play a sample.
import { BlockStack, Button, Card, Divider, InlineStack, Select, Text, TextField } from '@shopify/polaris';
import { useEffect, useRef, useState } from 'react';
import { TEXT } from '../../../../contract/errors';
import type { Project } from '../../../../contract/schemas/project';
import type { Voice } from '../../../../contract/schemas/project';

type Speaker = Project['speakers'][number];

export interface SpeakersPanelProps {
  speakers: readonly Speaker[];
  voices: readonly Voice[] | undefined;
  disabled: boolean;
  onRename: (id: string, name: string) => Promise<unknown>;
  onVoice: (id: string, voiceId: string) => Promise<unknown>;
  /** Makes an instant clone of the speaker and gives it to them (absent: the plan does not include it). */
  onInstantClone?: (id: string) => Promise<unknown>;
  /** The Teamspace's cast (absent: the plan does not include it). */
  cast?: SpeakerCast;
}

export interface SpeakerCast {
  /** Speaker id -> the cast member's name the voice selection recognised them as. */
  recognised: Readonly<Record<string, string>>;
  onUndo: (id: string) => Promise<unknown>;
  onKeep: (id: string) => Promise<unknown>;
}

export function SpeakersPanel({ speakers, voices, disabled, onRename, onVoice, onInstantClone, cast }: SpeakersPanelProps) {
  const audio = useRef<HTMLAudioElement | null>(null);
  const [playing, setPlaying] = useState<string | null>(null);

  useEffect(() => () => audio.current?.pause(), []);

  const play = (voice: Voice | undefined) => {
    if (!voice?.sample_url) return;
    if (playing === voice.id) {
      audio.current?.pause();
      setPlaying(null);
      return;
    }
    audio.current?.pause();
    const a = new Audio(voice.sample_url);
    audio.current = a;
    a.onended = () => setPlaying(null);
    a.onerror = () => setPlaying(null);
    setPlaying(voice.id);
    void a.play().catch(() => setPlaying(null));
  };

  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingSm">
          Speakers and voices
        </Text>
        {speakers.length === 0 && (
          <Text as="p" tone="subdued">
            No speakers yet.
          </Text>
        )}
        {speakers.map((s, i) => (
          <BlockStack key={s.id} gap="300">
            {i > 0 && <Divider />}
            <SpeakerRow speaker={s} voices={voices} disabled={disabled} playing={playing} onPlay={play} onRename={onRename} onVoice={onVoice}
              onInstantClone={onInstantClone} cast={cast} />
          </BlockStack>
        ))}
      </BlockStack>
    </Card>
  );
}

function SpeakerRow({
  speaker,
  voices,
  disabled,
  playing,
  onPlay,
  onRename,
  onVoice,
  onInstantClone,
  cast,
}: {
  cast?: SpeakerCast;
  speaker: Speaker;
  voices: readonly Voice[] | undefined;
  disabled: boolean;
  playing: string | null;
  onPlay: (v: Voice | undefined) => void;
  onRename: (id: string, name: string) => Promise<unknown>;
  onVoice: (id: string, voiceId: string) => Promise<unknown>;
  onInstantClone?: (id: string) => Promise<unknown>;
}) {
  const [name, setName] = useState(speaker.name);
  const [cloning, setCloning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [kept, setKept] = useState(false);
  useEffect(() => setName(speaker.name), [speaker.name]);
  const recognisedAs = cast?.recognised[speaker.id];
  const run = (fn: () => Promise<unknown>, done?: () => void) => {
    setBusy(true);
    fn()
      .then(() => {
        setError(null);
        done?.();
      }, (e: Error) => setError(e.message))
      .finally(() => setBusy(false));
  };

  const commit = async () => {
    const n = name.trim();
    if (n === speaker.name) return setError(null);
    if (!n) return setError(TEXT.fieldRequired);
    if (n.length > 100) return setError('At most 100 characters');
    setBusy(true);
    try {
      await onRename(speaker.id, n);
      setError(null);
    } catch (e) {
      setError((e as Error).message);
      setName(speaker.name);
    } finally {
      setBusy(false);
    }
  };
  const voice = voices?.find((v) => v.id === speaker.voice_id);
  const label = (v: Voice) => (v.gender ? `${v.name} (${v.gender})` : v.name);
  // the speaker's own instant clone, then the Teamspace's clones, then the stock voices
  const mine = (voices ?? []).filter((v) => v.is_temporary && v.speaker_id === speaker.id);
  const clones = (voices ?? []).filter((v) => v.preset_id && !v.is_temporary);
  const stock = (voices ?? []).filter((v) => !v.preset_id);
  const options = [
    ...(speaker.voice_id && !voice ? [{ label: speaker.voice_id.startsWith('preset:') ? 'A deleted voice clone: choose another' : speaker.voice_id, value: speaker.voice_id }] : []),
    ...(!speaker.voice_id ? [{ label: 'Choose a voice', value: '' }] : []),
    ...(mine.length || clones.length
      ? [
          ...(mine.length ? [{ title: 'Instant clone of this speaker', options: mine.map((v) => ({ label: v.name, value: v.id })) }] : []),
          ...(clones.length ? [{ title: 'Voice Clone Library', options: clones.map((v) => ({ label: label(v), value: v.id })) }] : []),
          { title: 'Voices', options: stock.map((v) => ({ label: label(v), value: v.id })) },
        ]
      : stock.map((v) => ({ label: label(v), value: v.id }))),
  ];
  return (
    <BlockStack gap="150">
      {recognisedAs && cast && (
        <InlineStack gap="100" blockAlign="center">
          <Text as="span" variant="bodySm" tone="subdued">
            {TEXT.castRecognisedPrefix} {recognisedAs} {TEXT.castRecognisedSuffix} —
          </Text>
          <Button variant="plain" disabled={disabled || busy} accessibilityLabel={`${TEXT.castUndo}: this speaker is not ${recognisedAs}`}
            onClick={() => run(() => cast.onUndo(speaker.id))}>
            {TEXT.castUndo}
          </Button>
        </InlineStack>
      )}
      <TextField
        label={`Name of speaker ${speaker.name || speaker.id}`}
        labelHidden
        autoComplete="off"
        value={name}
        disabled={disabled || busy}
        onChange={setName}
        onBlur={() => void commit()}
        error={error ?? undefined}
      />
      <InlineStack gap="200" wrap={false} blockAlign="center">
        <div style={{ flex: 1, minWidth: 0 }}>
          <Select
            label={`Voice of ${speaker.name}`}
            labelHidden
            options={options}
            value={speaker.voice_id ?? ''}
            disabled={disabled || busy || !voices}
            onChange={(v) => {
              if (!v) return;
              setBusy(true);
              onVoice(speaker.id, v)
                .then(() => setError(null), (e: Error) => setError(e.message))
                .finally(() => setBusy(false));
            }}
          />
        </div>
        <Button
          onClick={() => onPlay(voice)}
          disabled={!voice?.sample_url}
          accessibilityLabel={playing === voice?.id ? `Stop the sample of ${speaker.name}` : `Play a sample of ${speaker.name}'s voice`}
        >
          {playing === voice?.id && voice ? 'Stop' : 'Play sample'}
        </Button>
      </InlineStack>
      {recognisedAs && cast && (
        <Text as="p" variant="bodySm" tone="subdued">
          {TEXT.castVoiceFollows(recognisedAs)}
        </Text>
      )}
      {onInstantClone && (
        <InlineStack>
          <Button
            variant="plain"
            disabled={disabled || busy || cloning}
            loading={cloning}
            accessibilityLabel={`Make an instant clone of ${speaker.name}'s voice`}
            onClick={() => {
              setCloning(true);
              onInstantClone(speaker.id)
                .then(() => setError(null), (e: Error) => setError(e.message))
                .finally(() => setCloning(false));
            }}
          >
            {mine.length ? 'Clone this speaker again' : 'Instant clone of this speaker'}
          </Button>
        </InlineStack>
      )}
      {cast && !recognisedAs && (
        <InlineStack>
          <Button variant="plain" disabled={disabled || busy || kept} accessibilityLabel={`${TEXT.castKeep}: ${speaker.name}`}
            onClick={() => run(() => cast.onKeep(speaker.id), () => setKept(true))}>
            {kept ? TEXT.castKept : TEXT.castKeep}
          </Button>
        </InlineStack>
      )}
    </BlockStack>
  );
}
