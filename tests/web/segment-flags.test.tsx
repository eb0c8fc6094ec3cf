// The quality report's flags on a segment row (issue 28): a short tag per flag, its reason and the suggested action
// in the tooltip and the accessible name; kinds other checks add show their reason; nothing without flags.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AttentionItem } from '../../contract/schemas/quality';
import { SegmentFlags } from '../../src/features/editor/components/SegmentFlags';

const item = (kind: string, severity: 'warning' | 'critical', reason: string, action: string): AttentionItem => ({
  kind, severity, segment_id: 's1', speaker: 'S1', start: 1, reason, action,
});

describe('segment flags', () => {
  it('shows each flag of the segment with its reason and action', () => {
    render(
      <SegmentFlags
        items={[
          item('speech_under_dub', 'critical', 'The original speech can still be heard under the dub here (about 11 dB under the voice).', 'Listen to the segment.'),
          item('fast_speech', 'warning', 'The voice is sped up to ×1.24 to fit.', 'Shorten the translation.'),
          item('timing_bar', 'warning', 'Subtitle shown for too short a time', 'Lengthen the segment.'),
        ]}
      />,
    );
    const tags = screen.getAllByLabelText(/^Quality: /);
    expect(tags.map((t) => t.textContent)).toEqual(['Original voice audible', 'Spoken fast', 'Subtitle shown for too…']);
    expect(tags[0]!.getAttribute('aria-label')).toBe('Quality: The original speech can still be heard under the dub here (about 11 dB under the voice). Listen to the segment.');
    expect(tags[0]!.className).toContain('ed-tag-flag-critical');
    expect(tags[1]!.getAttribute('title')).toBe('The voice is sped up to ×1.24 to fit.\nShorten the translation.');
  });

  it('renders nothing without flags', () => {
    const { container } = render(<SegmentFlags items={[]} />);
    expect(container.innerHTML).toBe('');
    render(<SegmentFlags items={undefined} />);
    expect(screen.queryByLabelText(/^Quality: /)).toBeNull();
  });
});
