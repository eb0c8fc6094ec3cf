// /account: profile (with the e-mail change and its confirmation link, ?confirm_email=<token>), plan, e-mail
// consent, sign-out and account deletion.
import { Badge, Banner, BlockStack, Box, Button, Card, Checkbox, InlineStack, Layout, Modal, Text } from '@shopify/polaris';
import { useEffect, useRef, useState } from 'react';
import { useSWRConfig } from 'swr';
import { useLocation, useSearch } from 'wouter';
import { errorMessage } from '../../lib/http';
import { useAuth } from '../../lib/auth/context';
import { formatDate } from '../../lib/format';
import { signOutToAuth } from '../../lib/auth/session';
import { PageFrame } from '../../ui/page';
import { SpinnerPage } from '../../ui/spinner-page';
import { useSnackbar } from '../../ui/snackbars';
import { useToast } from '../../ui/toasts';
import { userPlanName, userPlanTier as planTierOf } from '../../../contract/plans';
import { updateCurrentUser, useCurrentUser } from '../../lib/api/use-current-user';
import { confirmEmailChange, deleteCurrentUser, useEmailChange } from './api';
import { ConfirmEmailDialog } from './ConfirmEmailDialog';

/**
 * Follows the confirmation link of an e-mail change once (the token leaves the address bar at once): the
 * outcome, or the reason it failed (expired, already used, another account), for a banner.
 */
function useConfirmLink(): { state: 'idle' | 'confirming' | 'done' | 'failed'; message: string | null; clear: () => void } {
  const search = useSearch();
  const [, navigate] = useLocation();
  const token = new URLSearchParams(search).get('confirm_email');
  const started = useRef<string | null>(null);
  const [state, setState] = useState<'idle' | 'confirming' | 'done' | 'failed'>('idle');
  const [message, setMessage] = useState<string | null>(null);
  const { mutate } = useSWRConfig();
  useEffect(() => {
    if (!token || started.current === token) return;
    started.current = token;
    setState('confirming');
    navigate('/account', { replace: true });
    confirmEmailChange(token, mutate)
      .then((u) => {
        setState('done');
        setMessage(`Your e-mail is now ${u.email}. Sign in with it from now on.`);
      })
      .catch((e: unknown) => {
        setState('failed');
        setMessage(errorMessage(e));
      });
  }, [token, navigate, mutate]);
  return { state, message, clear: () => { setState('idle'); setMessage(null); } };
}


function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <InlineStack align="space-between" blockAlign="center" gap="400">
      <Text as="span" tone="subdued">
        {label}
      </Text>
      <Text as="span">{children}</Text>
    </InlineStack>
  );
}

/**
 * `billing`: the plan and billing section (composed by the app from the billing feature); `apiKeys`: the API keys
 * section (from the api-keys feature).
 */
export default function AccountPage({ billing, apiKeys }: { billing?: React.ReactNode; apiKeys?: React.ReactNode } = {}) {
  const { data: user } = useCurrentUser();
  const auth = useAuth();
  const embedded = auth.kind === 'embedded';
  const [, navigate] = useLocation();
  const toast = useToast();
  const snackbar = useSnackbar();
  const [savingConsent, setSavingConsent] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [changingEmail, setChangingEmail] = useState(false);
  const link = useConfirmLink();
  const { data: pending } = useEmailChange(!!user);

  if (!user) return <SpinnerPage />;
  const ownEmail = user.email_type === 'password';
  const tier = planTierOf(user);

  async function toggleConsent(value: boolean) {
    setSavingConsent(true);
    try {
      await updateCurrentUser({ email_consent: value });
      toast.show('Preferences saved');
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setSavingConsent(false);
    }
  }

  async function remove() {
    setDeleting(true);
    try {
      await deleteCurrentUser();
      await signOutToAuth();
    } catch (e) {
      snackbar.show(errorMessage(e));
      setDeleting(false);
    }
  }

  return (
    <PageFrame title="Account" subtitle={embedded ? undefined : user.email}>
      <Layout>
        {link.message ? (
          <Layout.Section>
            <Banner
              tone={link.state === 'done' ? 'success' : 'critical'}
              title={link.state === 'done' ? 'E-mail changed' : 'The e-mail was not changed'}
              onDismiss={link.clear}
            >
              <p>{link.message}</p>
            </Banner>
          </Layout.Section>
        ) : null}
        <Layout.AnnotatedSection title="Profile" description={embedded ? 'Your plan.' : 'The e-mail you sign in with and your plan.'}>
          <Card>
            <BlockStack gap="300">
              {embedded ? null : (
              <InlineStack align="space-between" blockAlign="center" gap="400">
                <Text as="span" tone="subdued">
                  Email
                </Text>
                <InlineStack gap="200" blockAlign="center">
                  <Text as="span">{user.email}</Text>
                  {ownEmail ? (
                    <Button variant="plain" onClick={() => setChangingEmail(true)}>
                      Change
                    </Button>
                  ) : null}
                </InlineStack>
              </InlineStack>
              )}
              {pending?.pending_email ? (
                <Text as="p" tone="subdued">
                  {`Waiting for confirmation: we sent a link to ${pending.pending_email}. Your e-mail changes when you follow it.`}
                </Text>
              ) : null}
              <Row label="Member since">{formatDate(user.created_date)}</Row>
              {billing ? null : (
              <InlineStack align="space-between" blockAlign="center">
                <Text as="span" tone="subdued">
                  Plan
                </Text>
                <InlineStack gap="200" blockAlign="center">
                  <Badge tone={tier === 'trial' || tier === 'free' ? 'info' : 'success'}>{userPlanName(user)}</Badge>
                  <Button variant="plain" onClick={() => navigate('/pricing', { state: { from: '/account' } })}>
                    {tier === 'trial' || tier === 'free' ? 'Upgrade' : 'Change plan'}
                  </Button>
                </InlineStack>
              </InlineStack>
              )}
              {user.is_superuser ? (
                <InlineStack align="space-between" blockAlign="center">
                  <Text as="span" tone="subdued">
                    Role
                  </Text>
                  <InlineStack gap="200" blockAlign="center">
                    <Badge tone="attention">Administrator</Badge>
                    <Button variant="plain" onClick={() => navigate('/admin')}>
                      Open admin
                    </Button>
                  </InlineStack>
                </InlineStack>
              ) : null}
            </BlockStack>
          </Card>
        </Layout.AnnotatedSection>
        {billing ? (
          <Layout.AnnotatedSection title="Plan and billing" description="Your plan, its next billing date and your latest payment.">
            {billing}
          </Layout.AnnotatedSection>
        ) : null}
        {apiKeys ? (
          <Layout.AnnotatedSection title="API keys" description="Dub videos from your own code: each key acts as you, with your Teamspaces and plan.">
            {apiKeys}
          </Layout.AnnotatedSection>
        ) : null}
        {embedded ? null : (
        <Layout.AnnotatedSection title="Notifications" description="What we may send to your inbox.">
          <Card>
            <Checkbox
              label="Send me product news and tips"
              checked={user.email_consent}
              disabled={savingConsent}
              onChange={(v) => void toggleConsent(v)}
            />
          </Card>
        </Layout.AnnotatedSection>
        )}
        {/* Inside the platform's admin the platform owns the session and the account: nothing to sign out of or delete here. */}
        {embedded ? null : (
        <Layout.AnnotatedSection title="Session and data" description="Sign out of this device or delete your account.">
          <Card>
            <BlockStack gap="400">
              {auth.kind === 'identity' ? (
                <InlineStack align="space-between" blockAlign="center">
                  <Text as="span">Sign out of this browser</Text>
                  <Button onClick={() => void signOutToAuth()}>Sign out</Button>
                </InlineStack>
              ) : null}
              <InlineStack align="space-between" blockAlign="center">
                <Box maxWidth="70%">
                  <Text as="span">Delete the account, its Teamspaces you own and their projects</Text>
                </Box>
                <Button tone="critical" onClick={() => setConfirmDelete(true)}>
                  Delete account
                </Button>
              </InlineStack>
            </BlockStack>
          </Card>
        </Layout.AnnotatedSection>
        )}
      </Layout>
      <ConfirmEmailDialog
        open={changingEmail}
        currentEmail={user.email}
        onClose={() => setChangingEmail(false)}
        onSent={(email) => {
          setChangingEmail(false);
          toast.show(`Confirmation link sent to ${email}`);
        }}
      />
      <Modal
        open={confirmDelete}
        onClose={() => setConfirmDelete(false)}
        title="Delete your account?"
        primaryAction={{ content: 'Delete account', destructive: true, loading: deleting, onAction: () => void remove() }}
        secondaryActions={[{ content: 'Cancel', onAction: () => setConfirmDelete(false), disabled: deleting }]}
      >
        <Modal.Section>
          <Text as="p">This cannot be undone. Your projects and the Teamspaces you own will be removed.</Text>
        </Modal.Section>
      </Modal>
    </PageFrame>
  );
}
