// Video player with tabs Original / Translated (the latter once generated). It follows the selected
// segment and reports the playhead so the list highlights the segment under it.
import { Card, InlineStack, Tabs, Text } from '@shopify/polaris';
import { forwardRef, useCallback, useImperativeHandle, useRef, useState } from 'react';
import { formatClock } from '../lib/time';

export type PlayerTab = 'original' | 'translated' | 'lipsync';

export interface PlayerHandle {
  seek(t: number): void;
  /** Plays from `start` and pauses at `end`. */
  playRange(start: number, end: number): void;
  isPlaying(): boolean;
}

export interface PlayerProps {
  originalUrl: string | null;
  translatedUrl: string | null;
  /** The lip-synced video, once made (a third tab). */
  lipsyncUrl?: string | null;
  poster: string | null;
  tab: PlayerTab;
  onTabChange: (t: PlayerTab) => void;
  onTime: (t: number, playing: boolean) => void;
}

export const Player = forwardRef<PlayerHandle, PlayerProps>(function Player(p, ref) {
  const video = useRef<HTMLVideoElement>(null);
  const stopAt = useRef<number | null>(null);
  const keepTime = useRef(0);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  const { onTime } = p;

  useImperativeHandle(ref, () => ({
    seek(t) {
      const v = video.current;
      if (!v) return;
      stopAt.current = null;
      v.currentTime = t;
      setTime(t);
    },
    playRange(start, end) {
      const v = video.current;
      if (!v) return;
      v.currentTime = start;
      stopAt.current = end;
      void v.play().catch(() => undefined);
    },
    isPlaying: () => !!video.current && !video.current.paused,
  }));

  const onTimeUpdate = useCallback(() => {
    const v = video.current;
    if (!v) return;
    if (stopAt.current !== null && v.currentTime >= stopAt.current) {
      v.pause();
      stopAt.current = null;
    }
    setTime(v.currentTime);
    onTime(v.currentTime, !v.paused);
  }, [onTime]);

  const src = p.tab === 'translated' ? p.translatedUrl : p.tab === 'lipsync' ? (p.lipsyncUrl ?? null) : p.originalUrl;

  const tabs = [
    { id: 'original', content: 'Original', accessibilityLabel: 'Original video' },
    { id: 'translated', content: 'Translated', accessibilityLabel: 'Translated video', disabled: !p.translatedUrl },
    ...(p.lipsyncUrl ? [{ id: 'lipsync', content: 'Lip-sync', accessibilityLabel: 'Lip-synced video' }] : []),
  ];
  const order: PlayerTab[] = ['original', 'translated', 'lipsync'];
  return (
    <Card padding="0">
      <div style={{ padding: '4px 8px 0' }}>
        <Tabs
          tabs={tabs}
          selected={Math.max(0, order.indexOf(p.tab))}
          onSelect={(i) => {
            keepTime.current = video.current?.currentTime ?? 0;
            const t = order[i] ?? 'original';
            p.onTabChange(t === 'translated' && !p.translatedUrl ? 'original' : t === 'lipsync' && !p.lipsyncUrl ? 'original' : t);
          }}
        />
      </div>
      {src ? (
        <video
          ref={video}
          className="ed-video"
          src={src}
          poster={p.poster ?? undefined}
          controls
          preload="metadata"
          onTimeUpdate={onTimeUpdate}
          onSeeked={onTimeUpdate}
          onPause={onTimeUpdate}
          onLoadedMetadata={(e) => {
            const v = e.currentTarget;
            setDuration(v.duration || 0);
            // Switching tabs keeps the position.
            if (keepTime.current > 0) {
              v.currentTime = keepTime.current;
              keepTime.current = 0;
            }
          }}
          aria-label={p.tab === 'translated' ? 'Translated video' : p.tab === 'lipsync' ? 'Lip-synced video' : 'Original video'}
        />
      ) : (
        <div className="ed-video" style={{ display: 'grid', placeItems: 'center', color: '#fff' }}>
          <Text as="p" tone="inherit">
            The video is not available yet
          </Text>
        </div>
      )}
      <div style={{ padding: '8px 12px' }}>
        <InlineStack align="space-between">
          <Text as="span" variant="bodySm" tone="subdued">
            {formatClock(time)} / {formatClock(duration)}
          </Text>
          <Text as="span" variant="bodySm" tone="subdued">
            {p.tab === 'translated' ? 'Dubbed video' : p.tab === 'lipsync' ? 'Lip-synced dubbed video' : 'Source video'}
          </Text>
        </InlineStack>
      </div>
    </Card>
  );
});
