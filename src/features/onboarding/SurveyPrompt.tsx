// A survey from the settings (spec sections 3 and 7): shown once per user, never again after an answer or a
// dismissal (the server keeps either), and only while no tour step is on screen.
import { Button, ChoiceList, InlineStack, Text, TextField } from '@shopify/polaris';
import { useAtomValue } from 'jotai';
import { useState } from 'react';
import type { Settings } from '../../../contract/schemas/settings';
import { analytics } from '../../lib/analytics';
import { call, clientWith } from '../../lib/api/client';
import { errorMessage } from '../../lib/http';
import { tourStepAtom } from './Tour';

export function answerSurvey(surveyId: string, answers: string[], comment: string): Promise<unknown> {
  return call(clientWith({ spaceId: false }).POST('/api/survey/add', { body: { survey_id: surveyId, answers, comment } }));
}
export function rejectSurvey(surveyId: string): Promise<unknown> {
  return call(clientWith({ spaceId: false }).POST('/api/survey/reject', { body: { survey_id: surveyId } }));
}

export function SurveyPrompt({ surveys }: { surveys: Settings['surveys'] }) {
  const tourStep = useAtomValue(tourStepAtom);
  const [closed, setClosed] = useState<string[]>([]);
  const [answers, setAnswers] = useState<string[]>([]);
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const survey = surveys.find((s) => !closed.includes(s.id));
  if (!survey || tourStep) return null;
  async function run(fn: () => Promise<unknown>, sent: string[] | null) {
    if (!survey) return;
    setBusy(true);
    setError(null);
    try {
      await fn();
      if (sent) analytics.customerSurvey(survey.id, sent);
      setClosed((c) => [...c, survey.id]);
      setAnswers([]);
      setComment('');
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="ds-survey" role="dialog" aria-label={survey.title}>
      <ChoiceList
        title={survey.title}
        allowMultiple
        disabled={busy}
        choices={survey.questions.map((q) => ({ label: q, value: q }))}
        selected={answers}
        onChange={setAnswers}
      />
      <div style={{ marginTop: 8 }}>
        <TextField label="Anything else? (optional)" autoComplete="off" value={comment} onChange={setComment} disabled={busy} maxLength={2000} error={error ?? undefined} />
      </div>
      <div style={{ marginTop: 12 }}>
        <InlineStack align="end" gap="200">
          <Button variant="plain" disabled={busy} onClick={() => void run(() => rejectSurvey(survey.id), null)}>
            Not now
          </Button>
          <Button variant="primary" disabled={busy || answers.length === 0} loading={busy} onClick={() => void run(() => answerSurvey(survey.id, answers, comment), answers)}>
            Send
          </Button>
        </InlineStack>
      </div>
      <Text as="span" variant="bodySm" tone="subdued">
        We ask once.
      </Text>
    </section>
  );
}
