// The quality panel of the editor (issue 15): the report's figures, each segment that needs attention a click
// away, the CSV export, and the stale and missing states.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import type { QualityReport } from '../../contract/schemas/quality';
import { QualityPanel } from '../../src/features/editor/components/QualityPanel';
import { appHandlers, renderRoute, server, SPACE } from './projects-harness';

const seg = (id: string, start: number, issues: QualityReport['segments'][number]['issues'], over: Partial<QualityReport['segments'][number]> = {}) => ({
  id, start, end: start + 2, speaker: 'SPEAKER_0', speed_factor: 1, dub_start: start, dub_end: start + 1.5, ended_within_slot: true,
  overflow_sec: 0, borrowed_gap_sec: 0, overlap_sec: 0, drift_sec: 0, glossary_expected: [], glossary_found: [], asr_confidence: null, issues, ...over,
});
const REPORT: QualityReport = {
  project_id: 'p1', generation: 2, created_at: '2026-01-01T00:00:00.000Z', stale: false, duration: 60, max_drift_sec: 0.12,
  loudness_lufs: -16, source_loudness_lufs: -22.4, background_level_db: -38.5, source_background_level_db: -36, background_kept: true,
  speech_coverage: 0.93,
  segments: [
    seg('s1', 1, []),
    seg('s2', 65.5, ['overflow', 'glossary'], { overflow_sec: 0.42, ended_within_slot: false, glossary_expected: ['Acme'], glossary_found: [] }),
  ],
  attention: [
    {
      kind: 'voice_gender', severity: 'critical', segment_id: null, speaker: 'SPEAKER_1', start: null,
      reason: 'Speaker 2 sounds female, but is dubbed with a male voice.', action: 'Choose a female voice for Speaker 2 in the speakers panel.',
    },
    { kind: 'overflow', severity: 'warning', segment_id: 's2', speaker: 'SPEAKER_0', start: 65.5, reason: 'The dubbed voice runs 0.42 s past the end of its segment.', action: 'Shorten the translation.' },
    { kind: 'glossary', severity: 'warning', segment_id: 's2', speaker: 'SPEAKER_0', start: 65.5, reason: 'Dictionary term missing from the translation: Acme.', action: 'Edit the translation to use the dictionary’s term.' },
  ],
};

function setup(report: QualityReport | null) {
  const csvCalls: string[] = [];
  server.use(
    ...appHandlers(),
    http.get('*/api/project/p1/quality', ({ request }) => {
      const format = new URL(request.url).searchParams.get('format');
      if (format === 'csv') {
        csvCalls.push(format);
        return new HttpResponse('project_id\r\n', { headers: { 'content-type': 'text/csv' } });
      }
      return report ? HttpResponse.json(report) : HttpResponse.json({ detail: 'No quality report yet: it is made when the dubbed video is generated' }, { status: 404 });
    }),
  );
  const onOpen = vi.fn<(id: string) => void>();
  renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <QualityPanel projectId="p1" projectName="Talk" version="v1" onOpenSegment={onOpen} />);
  return { onOpen, csvCalls };
}

describe('quality panel', () => {
  it('shows the measured figures and opens a flagged segment with one click', async () => {
    const { onOpen } = setup(REPORT);
    const panel = await screen.findByRole('region', { name: 'Quality report' });
    await within(panel).findByText('-16.0 LUFS');
    expect(within(panel).getByText('-22.4 LUFS')).toBeTruthy();
    expect(within(panel).getByText('93%')).toBeTruthy();
    expect(within(panel).getByText('kept (-38.5 dB)')).toBeTruthy();
    expect(within(panel).getByText('1 segment and 1 voice check need attention')).toBeTruthy();
    expect(within(panel).getByText('1 critical')).toBeTruthy();
    const list = within(panel).getByRole('list', { name: 'What needs attention' });
    const items = within(list).getAllByRole('listitem');
    expect(items.map((li) => li.getAttribute('data-attention'))).toEqual(['voice_gender', 'overflow', 'glossary']);
    // a speaker's flag is not a link; a segment's opens the segment
    expect(within(items[0]!).queryByRole('button')).toBeNull();
    expect(items[0]!.textContent).toBe('Speaker 2 sounds female, but is dubbed with a male voice.Choose a female voice for Speaker 2 in the speakers panel.');
    const item = within(items[1]!).getByRole('button');
    expect(item.textContent).toBe('1:05 The dubbed voice runs 0.42 s past the end of its segment.Shorten the translation.');
    await userEvent.click(item);
    expect(onOpen).toHaveBeenCalledWith('s2');
  });

  it('exports the CSV', async () => {
    const { csvCalls } = setup(REPORT);
    const created = vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:x');
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    await userEvent.click(await screen.findByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(csvCalls).toEqual(['csv']));
    expect(created).toHaveBeenCalled();
    expect(clicked).toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it('says when the report is stale', async () => {
    setup({ ...REPORT, stale: true });
    await screen.findByRole('region', { name: 'Quality report' });
    expect(await screen.findByText('The transcript changed since this dub: generate again for a new report.')).toBeTruthy();
  });

  it('explains a missing report', async () => {
    setup(null);
    expect(await screen.findByText('No quality report yet: it is made when the dubbed video is generated')).toBeTruthy();
  });
});
