// The editor's transcript column: its toolbar (count, Add segment), the dub's timing summary and the segment list
// (or "Loading the transcript…").
import { Button, Text } from '@shopify/polaris';
import { useAtomValue } from 'jotai';
import type { RefObject } from 'react';
import type { Project } from '../../../../contract/schemas/project';
import { isFinished } from '../../../../contract/statuses';
import { deviceTypeAtom } from '../../../lib/state';
import type { EditorSegment } from '../lib/segments';
import { useSegmentFlags } from './SegmentFlags';
import { SegmentList, type SegmentListHandle, type SegmentListProps } from './SegmentList';
import { TimingSummary, useDubTiming } from './TimingSummary';

/** What the list's rows do (selection, edits, play, split, merge, delete, a timing fix saved). */
type RowHandlers = Pick<SegmentListProps, 'onSelect' | 'onChange' | 'onInvalid' | 'onPlay' | 'onSplit' | 'onMergeNext' | 'onDelete' | 'onServerSegment'>;

export function TranscriptPane(p: RowHandlers & {
  project: Project;
  listRef: RefObject<SegmentListHandle>;
  segments: EditorSegment[];
  dirty: ReadonlySet<string>;
  selectedId: string | null;
  activeId: string | null;
  speakers: readonly { id: string; name: string }[];
  loaded: boolean;
  /** The transcript could not be loaded (a banner says so above). */
  loadFailed: boolean;
  readOnly: boolean;
  onAdd: () => void;
}) {
  const { project, segments } = p;
  const pid = project.id;
  const segmentFlags = useSegmentFlags(pid, project.translated_audio && isFinished(project.status) ? project.translated_audio : null);
  const dubTiming = useDubTiming(pid, project.translated_audio && isFinished(project.status) ? project.translated_audio : null);
  const device = useAtomValue(deviceTypeAtom);
  return (
    <div className="ed-list">
      <div className="ed-toolbar">
        <Text as="h2" variant="headingSm">
          Transcript
        </Text>
        <Text as="span" tone="subdued" variant="bodySm">
          {segments.length} segments{project.changed_segments > 0 ? ` · ${project.changed_segments} changed` : ''}
        </Text>
        <span className="ed-spacer" />
        <Text as="span" tone="subdued" variant="bodySm">
          Alt+↑/↓ moves between segments
        </Text>
        <Button onClick={p.onAdd} disabled={p.readOnly || !p.loaded}>
          Add segment
        </Button>
      </div>
      {p.loaded ? <TimingSummary segments={segments} timing={dubTiming} /> : null}
      {!p.loaded && !p.loadFailed ? (
        <div style={{ padding: 16 }}>
          <Text as="p" tone="subdued">
            Loading the transcript…
          </Text>
        </div>
      ) : (
        <SegmentList
          ref={p.listRef}
          narrow={device === 'mobile'}
          segments={segments}
          dirty={p.dirty}
          selectedId={p.selectedId}
          activeId={p.activeId}
          speakers={p.speakers}
          durationSec={project.duration}
          readOnly={p.readOnly}
          height="max(360px, calc(100vh - 200px))"
          onSelect={p.onSelect}
          onChange={p.onChange}
          onInvalid={p.onInvalid}
          onPlay={p.onPlay}
          onSplit={p.onSplit}
          onMergeNext={p.onMergeNext}
          onDelete={p.onDelete}
          flags={segmentFlags}
          projectId={pid}
          drift={dubTiming?.drift}
          onServerSegment={p.onServerSegment}
        />
      )}
    </div>
  );
}
