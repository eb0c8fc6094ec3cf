// Customers: search by e-mail, sign-up date range and plan (20 rows by default), CSV export.
import { Banner, BlockStack, Button, Card, DataTable, EmptyState, InlineGrid, InlineStack, Select, Text, TextField } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useSWRConfig } from 'swr';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import { PLAN_TIERS, type PlanTier } from '../../../contract/features';
import { errorMessage } from '../../lib/http';
import { EMPTY_ILLUSTRATION } from '../../ui/illustrations';
import { useSnackbar } from '../../ui/snackbars';
import { downloadCustomersCsv, grantPlan, useCustomers, type CustomerFilter } from './api';
import type { AdminUser } from '../../../contract/schemas/user';
import { useToast } from '../../ui/toasts';

function useDebounced<T>(value: T, ms = 300): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** The plan of one customer, changeable in place (self-hosters grant plans here until payments exist). */
function PlanCell({ user }: { user: AdminUser }) {
  const [saving, setSaving] = useState(false);
  const snackbar = useSnackbar();
  const toast = useToast();
  const { mutate } = useSWRConfig();
  async function change(plan: PlanTier) {
    if (plan === user.plan) return;
    setSaving(true);
    try {
      await grantPlan(mutate, user.id, plan);
      toast.show(`${user.email} is now on ${plan}`);
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setSaving(false);
    }
  }
  return (
    <Select
      label={`Plan of ${user.email}`}
      labelHidden
      disabled={saving}
      value={user.plan}
      onChange={(v) => void change(v as PlanTier)}
      options={PLAN_TIERS.map((p) => ({ label: p, value: p }))}
    />
  );
}

function day(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 10);
}

export function CustomersSection() {
  const [email, setEmail] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [plan, setPlan] = useState<PlanTier | ''>('');
  const [limit, setLimit] = useState(ADMIN_LIST_LIMIT);
  const debouncedEmail = useDebounced(email);
  const filter: CustomerFilter = { email: debouncedEmail, date_gt: from, date_lt: to, subscription_type: plan, limit };
  const { data, error, isLoading } = useCustomers(filter);
  const [exporting, setExporting] = useState(false);
  const snackbar = useSnackbar();

  async function exportCsv() {
    setExporting(true);
    try {
      await downloadCustomersCsv(filter);
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setExporting(false);
    }
  }

  const rows = (data ?? []).map((u) => [
    u.email,
    <PlanCell key={`plan-${u.id}`} user={u} />,
    `${u.minutes.used} / ${u.minutes.total}`,
    day(u.created_date),
    u.is_active ? (u.is_superuser ? 'Active, admin' : 'Active') : 'Inactive',
  ]);

  return (
    <BlockStack gap="400">
      <Card>
        <InlineGrid columns={{ xs: 1, md: 4 }} gap="300">
          <TextField label="Email" value={email} onChange={setEmail} autoComplete="off" clearButton onClearButtonClick={() => setEmail('')} />
          <TextField label="Signed up after" type="date" value={from} onChange={setFrom} autoComplete="off" />
          <TextField label="Signed up before" type="date" value={to} onChange={setTo} autoComplete="off" />
          <Select
            label="Plan"
            value={plan}
            onChange={(v) => setPlan(v as PlanTier | '')}
            options={[{ label: 'Any plan', value: '' }, ...PLAN_TIERS.map((p) => ({ label: p, value: p }))]}
          />
        </InlineGrid>
      </Card>
      {error ? <Banner tone="critical">{error.message}</Banner> : null}
      <Card padding="0">
        {rows.length === 0 && !isLoading ? (
          <EmptyState heading="No customers match" image={EMPTY_ILLUSTRATION}>
            <Text as="p">Change the e-mail or the dates to widen the search.</Text>
          </EmptyState>
        ) : (
          <DataTable
            columnContentTypes={['text', 'text', 'text', 'text', 'text']}
            headings={['Email', 'Plan', 'Minutes used', 'Signed up', 'Status']}
            rows={rows}
          />
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
