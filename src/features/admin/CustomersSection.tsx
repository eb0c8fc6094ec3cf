// Customers: search by e-mail, sign-up date range and plan (20 rows by default), CSV export.
import { Banner, BlockStack, Button, Card, Checkbox, DataTable, EmptyState, InlineGrid, InlineStack, Modal, Select, Text, TextField } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useSWRConfig } from 'swr';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import { PLAN_TIERS, type PlanTier } from '../../../contract/features';
import { errorMessage } from '../../lib/http';
import { EMPTY_ILLUSTRATION } from '../../ui/illustrations';
import { useSnackbar } from '../../ui/snackbars';
import { downloadCustomersCsv, grantMinutes, grantPlan, savePaymentsSettings, useCustomers, usePaymentsSettings, type CustomerFilter } from './api';
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

/** A minute pack granted to one customer's default Teamspace (the local provider's purchase). */
function GrantMinutesButton({ user }: { user: AdminUser }) {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState('100');
  const [note, setNote] = useState('');
  const [saving, setSaving] = useState(false);
  const [requestId, setRequestId] = useState(() => crypto.randomUUID());
  const [error, setError] = useState<string | null>(null);
  const toast = useToast();
  const { mutate } = useSWRConfig();
  const minutes = Number(value);
  const valid = /^\d{1,7}$/.test(value) && minutes >= 1;
  async function grant() {
    if (!valid || saving) return;
    setSaving(true);
    setError(null);
    try {
      await grantMinutes(mutate, user.id, minutes, requestId, note.trim() || undefined);
      toast.show(`${minutes} minutes added for ${user.email}`);
      setOpen(false);
      setRequestId(crypto.randomUUID());
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setSaving(false);
    }
  }
  return (
    <>
      <Button size="slim" onClick={() => setOpen(true)} accessibilityLabel={`Grant minutes to ${user.email}`}>
        Grant minutes
      </Button>
      {open ? (
        <Modal
          open
          onClose={() => setOpen(false)}
          title={`Grant minutes to ${user.email}`}
          primaryAction={{ content: 'Grant minutes', onAction: () => void grant(), loading: saving, disabled: !valid }}
          secondaryActions={[{ content: 'Cancel', onAction: () => setOpen(false) }]}
        >
          <Modal.Section>
            <BlockStack gap="300">
              <TextField
                label="Minutes"
                value={value}
                onChange={(v) => setValue(v.replace(/\D+/g, ''))}
                autoComplete="off"
                inputMode="numeric"
                error={value !== '' && !valid ? 'At least 1 minute' : undefined}
                helpText="Added to the customer's default Teamspace. They do not lapse with the plan."
              />
              <TextField label="Note (optional)" value={note} onChange={setNote} autoComplete="off" maxLength={200} />
              {error ? <Banner tone="critical">{error}</Banner> : null}
            </BlockStack>
          </Modal.Section>
        </Modal>
      ) : null}
    </>
  );
}

/** How users get plans on a server without online payments: ask the administrator, or self-service. */
function PaymentsCard() {
  const { data } = usePaymentsSettings();
  const { mutate } = useSWRConfig();
  const snackbar = useSnackbar();
  const [saving, setSaving] = useState(false);
  if (!data) return null;
  if (data.provider !== 'local') {
    return (
      <Banner tone="info" title="Payments by Stripe">
        <Text as="p">Customers pay for plans and minutes through Stripe. You can still grant plans and minutes here.</Text>
      </Banner>
    );
  }
  async function toggle(free: boolean) {
    setSaving(true);
    try {
      await savePaymentsSettings(mutate, free ? 'free' : 'admin');
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setSaving(false);
    }
  }
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingSm">
          Plans on this server
        </Text>
        <Text as="p" tone="subdued">
          No payment provider is configured: plans and minutes are granted here. You can also let users pick them themselves, at no charge.
        </Text>
        <Checkbox
          label="Let users choose plans and buy minutes without payment"
          checked={data.local_checkout === 'free'}
          disabled={saving}
          onChange={(v) => void toggle(v)}
        />
      </BlockStack>
    </Card>
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
    <InlineStack key={`min-${u.id}`} gap="200" blockAlign="center">
      <Text as="span">{`${u.minutes.used} / ${u.minutes.total}`}</Text>
      <GrantMinutesButton user={u} />
    </InlineStack>,
    day(u.created_date),
    u.is_active ? (u.is_superuser ? 'Active, admin' : 'Active') : 'Inactive',
  ]);

  return (
    <BlockStack gap="400">
      <PaymentsCard />
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
