// The quality report of the last dub (issue 15), measured from the output files: loudness of the dub and the
// source, the largest drift, speech coverage, whether the background was kept, and each segment that needs
// attention, a click away in the transcript. Exported as CSV.
import { Badge, Banner, BlockStack, Button, Card, InlineStack, Text } from '@shopify/polaris';
import { useEffect, useRef, useState } from 'react';
import type { QualityIssue, QualityReport, QualitySegment } from '../../../../contract/schemas/quality';
import { errorMessage } from '../../../lib/http';
import { qualityCsv, useQuality } from '../api';
import { formatClock } from '../lib/time';

export const ISSUE_TEXT: Record<QualityIssue, (s: QualitySegment) => string> = {
  overflow: (s) => `the voice runs ${s.overflow_sec.toFixed(2)} s past its slot`,
  fast_speech: (s) => `spoken fast (×${(s.speed_factor ?? 1).toFixed(2)})`,
  slow_speech: (s) => `spoken slowly (×${(s.speed_factor ?? 1).toFixed(2)})`,
  overlap: (s) => `overlaps another segment for ${s.overlap_sec.toFixed(2)} s`,
  drift: (s) => `starts ${Math.abs(s.drift_sec ?? 0).toFixed(2)} s ${(s.drift_sec ?? 0) > 0 ? 'late' : 'early'}`,
  missing_speech: () => 'no dubbed voice is heard',
  glossary: (s) => `dictionary term missing: ${s.glossary_expected.filter((t) => !s.glossary_found.includes(t)).join(', ')}`,
  low_asr_confidence: (s) => `the source was recognised with low confidence (${Math.round((s.asr_confidence ?? 0) * 100)}%)`,
};

const lufs = (x: number | null) => (x === null ? '—' : `${x.toFixed(1)} LUFS`);

export interface QualityPanelProps {
  projectId: string;
  projectName: string;
  /** Changes when a new dub is finished (the report is reloaded). */
  version: string | null;
  /** Opens a segment in the transcript. */
  onOpenSegment: (id: string) => void;
}

export function QualityPanel({ projectId, projectName, version, onOpenSegment }: QualityPanelProps) {
  const { data, error, mutate, isLoading } = useQuality(version ? projectId : null);
  const [csvError, setCsvError] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const seen = useRef(version);
  useEffect(() => {
    if (seen.current === version) return;
    seen.current = version;
    void mutate();
  }, [version, mutate]);
  if (!version) return null;

  const exportCsv = async () => {
    setCsvError(null);
    setExporting(true);
    try {
      const blob = await qualityCsv(projectId);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `${projectName.replace(/[^\w.\- ]+/g, '').trim() || 'project'} quality.csv`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setCsvError(errorMessage(e));
    } finally {
      setExporting(false);
    }
  };

  return (
    <Card>
      <section aria-label="Quality report">
        <BlockStack gap="300">
          <InlineStack align="space-between" blockAlign="center">
            <Text as="h2" variant="headingSm">
              Quality report
            </Text>
            {data && (
              <Button variant="plain" onClick={() => void exportCsv()} loading={exporting}>
                Export CSV
              </Button>
            )}
          </InlineStack>
          {isLoading && !data && <Text as="p" tone="subdued">Loading the report…</Text>}
          {error && !data && <Text as="p" tone={error.status === 404 ? 'subdued' : 'critical'}>{error.message}</Text>}
          {csvError && <Text as="p" tone="critical">{csvError}</Text>}
          {data && <ReportBody report={data} onOpenSegment={onOpenSegment} />}
        </BlockStack>
      </section>
    </Card>
  );
}

function ReportBody({ report, onOpenSegment }: { report: QualityReport; onOpenSegment: (id: string) => void }) {
  const flagged = report.segments.filter((s) => s.issues.length > 0);
  const figures: Array<[string, string]> = [
    ['Loudness of the dub', lufs(report.loudness_lufs)],
    ['Loudness of the source', lufs(report.source_loudness_lufs)],
    ['Largest drift', `${report.max_drift_sec.toFixed(2)} s`],
    ['Speech covered', `${Math.round(report.speech_coverage * 100)}%`],
    ['Background', report.background_kept ? `kept${report.background_level_db !== null ? ` (${report.background_level_db} dB)` : ''}` : `lost (${report.background_level_db ?? '—'} dB, source ${report.source_background_level_db ?? '—'} dB)`],
  ];
  return (
    <BlockStack gap="300">
      {report.stale && (
        <Banner tone="info">
          <p>The transcript changed since this dub: generate again for a new report.</p>
        </Banner>
      )}
      <dl className="ed-quality-figures">
        {figures.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <InlineStack gap="200" blockAlign="center">
        <Badge tone={flagged.length ? 'attention' : 'success'}>
          {flagged.length ? `${flagged.length} ${flagged.length === 1 ? 'segment needs' : 'segments need'} attention` : 'No segment needs attention'}
        </Badge>
      </InlineStack>
      {flagged.length > 0 && (
        <ul className="ed-quality-list" aria-label="Segments that need attention">
          {flagged.map((s) => (
            <li key={s.id}>
              <button type="button" className="ed-quality-item" onClick={() => onOpenSegment(s.id)} data-quality-segment={s.id}>
                <span className="ed-quality-time">{formatClock(s.start)}</span>
                <span>{s.issues.map((i) => ISSUE_TEXT[i](s)).join('; ')}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </BlockStack>
  );
}
