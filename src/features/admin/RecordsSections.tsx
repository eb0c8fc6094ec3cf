// Feedback and survey answers (superusers): search by e-mail and date range, 20 rows with more on demand,
// CSV export of the same search (streamed by the server).
import { Banner, BlockStack, Button, Card, Checkbox, DataTable, EmptyState, InlineGrid, InlineStack, Text, TextField } from '@shopify/polaris';
import { useEffect, useState, type ReactNode } from 'react';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import { call, clientWith } from '../../lib/api/client';
import { useApiGet, type GetAnswer } from '../../lib/api/use-api-get';
import { errorMessage, type ApiError } from '../../lib/http';
import { EMPTY_ILLUSTRATION } from '../../ui/illustrations';
import { useSnackbar } from '../../ui/snackbars';

export interface RecordsFilter {
  email: string;
  date_gt: string;
  date_lt: string;
  limit: number;
}

/** Query of a records search: empty values left out; the dates are whole days (from 00:00, to the end of the day). */
export function recordsQuery(f: RecordsFilter, withLimit = true): URLSearchParams {
  const q = new URLSearchParams();
  if (f.email.trim()) q.set('email', f.email.trim());
  if (f.date_gt) q.set('date_gt', `${f.date_gt}T00:00:00Z`);
  if (f.date_lt) q.set('date_lt', `${f.date_lt}T23:59:59.999Z`);
  if (withLimit) q.set('limit', String(f.limit));
  return q;
}

function useDebounced<T>(value: T, ms = 300): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

async function downloadCsv(path: 'admin/feedback' | 'admin/survey', q: URLSearchParams, filename: string): Promise<void> {
  const admin = clientWith({ spaceId: false });
  const init = { params: { query: Object.fromEntries(q) }, parseAs: 'blob' as const };
  const blob = await call(path === 'admin/feedback' ? admin.GET('/api/admin/feedback/csv', init) : admin.GET('/api/admin/survey/csv', init));
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const day = (iso: string) => new Date(iso).toISOString().slice(0, 10);

/** The query of a records list as the key and the request send it. */
type ListQuery = Record<string, string>;
/** A records list read: the rows of a search (keeping the last rows while the next search loads). */
type RowsRead<T> = (query: ListQuery) => { data?: T[]; error?: ApiError; isLoading: boolean };

const useFeedbackRows: RowsRead<GetAnswer<'/api/admin/feedback'>[number]> = (query) =>
  useApiGet('/api/admin/feedback', { params: { query } }, { keepPreviousData: true });
const useSurveyAnswerRows: RowsRead<GetAnswer<'/api/admin/survey'>[number]> = (query) =>
  useApiGet('/api/admin/survey', { params: { query } }, { keepPreviousData: true });

function RecordsList<T extends { id: string }>({
  path,
  useRows,
  filename,
  headings,
  row,
  empty,
}: {
  path: 'admin/feedback' | 'admin/survey';
  useRows: RowsRead<T>;
  filename: string;
  headings: string[];
  row: (r: T) => ReactNode[];
  empty: string;
}) {
  const [email, setEmail] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [limit, setLimit] = useState(ADMIN_LIST_LIMIT);
  const [exporting, setExporting] = useState(false);
  const snackbar = useSnackbar();
  const filter: RecordsFilter = { email: useDebounced(email), date_gt: from, date_lt: to, limit };
  const { data, error, isLoading } = useRows(Object.fromEntries(recordsQuery(filter)));
  const rows = (data ?? []).map(row);
  async function exportCsv() {
    setExporting(true);
    try {
      await downloadCsv(path, recordsQuery(filter, false), filename);
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setExporting(false);
    }
  }
  return (
    <BlockStack gap="400">
      <Card>
        <InlineGrid columns={{ xs: 1, md: 3 }} gap="300">
          <TextField label="Email" value={email} onChange={setEmail} autoComplete="off" clearButton onClearButtonClick={() => setEmail('')} />
          <TextField label="From" type="date" value={from} onChange={setFrom} autoComplete="off" />
          <TextField label="To" type="date" value={to} onChange={setTo} autoComplete="off" />
        </InlineGrid>
      </Card>
      {error ? <Banner tone="critical">{error.message}</Banner> : null}
      <Card padding="0">
        {rows.length === 0 && !isLoading ? (
          <EmptyState heading={empty} image={EMPTY_ILLUSTRATION}>
            <Text as="p">Change the e-mail or the dates to widen the search.</Text>
          </EmptyState>
        ) : (
          <DataTable columnContentTypes={headings.map(() => 'text' as const)} headings={headings} rows={rows} />
        )}
      </Card>
      <InlineStack align="space-between">
        <Button disabled={(data?.length ?? 0) < limit} onClick={() => setLimit(limit + ADMIN_LIST_LIMIT)}>
          Show more
        </Button>
        <Button onClick={() => void exportCsv()} loading={exporting}>
          Export CSV
        </Button>
      </InlineStack>
    </BlockStack>
  );
}

export function FeedbackSection() {
  return (
    <RecordsList
      path="admin/feedback"
      useRows={useFeedbackRows}
      filename="feedback.csv"
      empty="No feedback matches"
      headings={['Date', 'Email', 'Project', 'Status', 'What went wrong', 'Comment']}
      row={(f) => [day(f.created_at), f.email ?? '(deleted user)', f.project_name ?? '(deleted)', f.project_status ?? '', f.options.join(', '), f.comment]}
    />
  );
}

type Survey = GetAnswer<'/api/admin/survey/surveys'>[number];

/** Which surveys users are asked (each user once). */
function SurveySwitches() {
  const { data, mutate } = useApiGet('/api/admin/survey/surveys', {});
  const snackbar = useSnackbar();
  const [saving, setSaving] = useState<string | null>(null);
  async function toggle(s: Survey, active: boolean) {
    setSaving(s.id);
    try {
      await call(clientWith({ spaceId: false }).PATCH('/api/admin/survey/surveys/{id}', { params: { path: { id: s.id } }, body: { active } }));
      await mutate();
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setSaving(null);
    }
  }
  if (!data?.length) return null;
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingSm">
          Surveys
        </Text>
        {data.map((s) => (
          <Checkbox
            key={s.id}
            label={`Ask users: ${s.title}`}
            helpText={s.questions.join(' · ')}
            checked={s.active}
            disabled={saving === s.id}
            onChange={(v) => void toggle(s, v)}
          />
        ))}
      </BlockStack>
    </Card>
  );
}

export function SurveySection() {
  return (
    <BlockStack gap="400">
      <SurveySwitches />
      <SurveyAnswers />
    </BlockStack>
  );
}

function SurveyAnswers() {
  return (
    <RecordsList
      path="admin/survey"
      useRows={useSurveyAnswerRows}
      filename="survey.csv"
      empty="No survey answers match"
      headings={['Date', 'Email', 'Survey', 'Answer', 'Comment']}
      row={(a) => [day(a.created_at), a.email, a.survey_title, a.status === 'rejected' ? 'Dismissed' : a.answers.join(', '), a.comment]}
    />
  );
}
