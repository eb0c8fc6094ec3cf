// Feedback and survey answers: the frames of the two admin lists. Their records (and the search by e-mail or
// dates, and CSV export) arrive with the feedback and survey features.
import { Card, EmptyState, Text } from '@shopify/polaris';
import { EMPTY_ILLUSTRATION } from '../../ui/illustrations';

function RecordsFrame({ heading, body }: { heading: string; body: string }) {
  return (
    <Card>
      <EmptyState heading={heading} image={EMPTY_ILLUSTRATION}>
        <Text as="p">{body}</Text>
      </EmptyState>
    </Card>
  );
}

export function FeedbackSection() {
  return (
    <RecordsFrame
      heading="No feedback yet"
      body="Answers to 'What went wrong?' from the editor appear here with the user's e-mail and date."
    />
  );
}

export function SurveySection() {
  return <RecordsFrame heading="No survey answers yet" body="Customer survey answers appear here with the user's e-mail and date." />;
}
