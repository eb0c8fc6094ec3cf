// /admin: customers (default), feedback and survey sub-pages, plus the hidden homepage path with the app flags.
// Superusers only; everyone else is sent home.
import { Tabs } from '@shopify/polaris';
import { Redirect, useLocation } from 'wouter';
import { useCurrentUser } from '../../lib/api/use-current-user';
import { PageFrame } from '../../ui/page';
import { SpinnerPage } from '../../ui/spinner-page';
import { CustomersSection } from './CustomersSection';
import { AdminHomeSection } from './AdminHomeSection';
import { FeedbackSection, SurveySection } from './RecordsSections';
import { SupportInbox } from './SupportInbox';

export type AdminSection = 'customers' | 'feedback' | 'survey' | 'support' | 'homepage';
export const ADMIN_TABS: { id: Exclude<AdminSection, 'homepage'>; content: string }[] = [
  { id: 'customers', content: 'Customers' },
  { id: 'feedback', content: 'Feedback' },
  { id: 'survey', content: 'Survey' },
  { id: 'support', content: 'Support inbox' },
];

export default function AdminPage({ section }: { section: AdminSection }) {
  const { data: user } = useCurrentUser();
  const [, navigate] = useLocation();
  if (!user) return <SpinnerPage />;
  if (!user.is_superuser) return <Redirect to="/" replace />;
  const selected = ADMIN_TABS.findIndex((t) => t.id === section);
  return (
    <PageFrame title="Admin" fullWidth>
      {section !== 'homepage' ? (
        <Tabs
          tabs={ADMIN_TABS.map((t) => ({ ...t, panelID: `admin-${t.id}` }))}
          selected={selected}
          onSelect={(i) => navigate(`/admin/${ADMIN_TABS[i].id}`)}
        />
      ) : null}
      <div className="ds-admin-section" id={`admin-${section}`}>
        {section === 'customers' ? <CustomersSection /> : null}
        {section === 'feedback' ? <FeedbackSection /> : null}
        {section === 'survey' ? <SurveySection /> : null}
        {section === 'support' ? <SupportInbox /> : null}
        {section === 'homepage' ? <AdminHomeSection /> : null}
      </div>
    </PageFrame>
  );
}
