// The quality report of the last dub (issue 15), measured from the output files: loudness of the dub and the
// source, the largest drift, speech coverage, whether the background was kept, and each segment that needs
// attention, a click away in the transcript. Exported as CSV.
import { Banner, BlockStack, Button, Card, InlineStack, Text } from '@shopify/polaris';
import { useEffect, useRef, useState } from 'react';
import type { QualityReport } from '../../../../contract/schemas/quality';
import { errorMessage } from '../../../lib/http';
import { qualityCsv, useQuality } from '../api';
import { AttentionSummary } from './AttentionSummary';

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

/** "3 in 2 segments", "none". */
function unsureWords(r: QualityReport): string {
  const n = r.doubtful_words ?? 0;
  if (n === 0) return 'none';
  const segs = r.segments.filter((s) => (s.doubtful_words ?? 0) > 0).length;
  return `${n} in ${segs} segment${segs === 1 ? '' : 's'}`;
}

function ReportBody({ report, onOpenSegment }: { report: QualityReport; onOpenSegment: (id: string) => void }) {
  const lu = (x: number | null | undefined) => (x === null || x === undefined ? null : `${x.toFixed(1)} LU`);
  const figures: Array<[string, string]> = [
    ['Loudness of the dub', lufs(report.loudness_lufs)],
    ['Loudness of the source', lufs(report.source_loudness_lufs)],
    ...(report.loudness_range_lu !== undefined && report.loudness_range_lu !== null
      ? [['Loudness range', `${lu(report.loudness_range_lu)} (source ${lu(report.source_loudness_range_lu) ?? '—'})`] as [string, string]]
      : []),
    ...(report.true_peak_dbtp !== undefined && report.true_peak_dbtp !== null ? [['True peak', `${report.true_peak_dbtp.toFixed(1)} dBTP`] as [string, string]] : []),
    ['Largest drift', `${report.max_drift_sec.toFixed(2)} s`],
    ['Speech covered', `${Math.round(report.speech_coverage * 100)}%`],
    // recognised words likely wrong (shaded in the source text): where to listen
    ...(report.doubtful_words !== undefined ? [['Unsure words', unsureWords(report)] as [string, string]] : []),
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
      <AttentionSummary items={report.attention} onOpenSegment={onOpenSegment} />
    </BlockStack>
  );
}
