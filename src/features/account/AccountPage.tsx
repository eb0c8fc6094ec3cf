// /account: profile, plan, e-mail consent, sign-out and account deletion.
import { Badge, BlockStack, Box, Button, Card, Checkbox, InlineStack, Layout, Modal, Text } from '@shopify/polaris';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { errorMessage } from '../../lib/http';
import { useAuth } from '../../app/auth-context';
import { signOutToAuth } from '../../app/session';
import { PageFrame } from '../../ui/page';
import { SpinnerPage } from '../../ui/spinner-page';
import { useSnackbar } from '../../ui/snackbars';
import { useToast } from '../../ui/toasts';
import { deleteCurrentUser, planNameOf, planTierOf, updateCurrentUser, useCurrentUser } from './api';

function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${String(d.getDate()).padStart(2, '0')}.${String(d.getMonth() + 1).padStart(2, '0')}.${d.getFullYear()}`;
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

export default function AccountPage() {
  const { data: user } = useCurrentUser();
  const auth = useAuth();
  const [, navigate] = useLocation();
  const toast = useToast();
  const snackbar = useSnackbar();
  const [savingConsent, setSavingConsent] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleting, setDeleting] = useState(false);

  if (!user) return <SpinnerPage />;
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
    <PageFrame title="Account" subtitle={user.email}>
      <Layout>
        <Layout.AnnotatedSection title="Profile" description="The e-mail you sign in with and your plan.">
          <Card>
            <BlockStack gap="300">
              <Row label="Email">{user.email}</Row>
              <Row label="Member since">{formatDate(user.created_date)}</Row>
              <InlineStack align="space-between" blockAlign="center">
                <Text as="span" tone="subdued">
                  Plan
                </Text>
                <InlineStack gap="200" blockAlign="center">
                  <Badge tone={tier === 'trial' || tier === 'free' ? 'info' : 'success'}>{planNameOf(user)}</Badge>
                  <Button variant="plain" onClick={() => navigate('/pricing', { state: { from: '/account' } })}>
                    {tier === 'trial' || tier === 'free' ? 'Upgrade' : 'Change plan'}
                  </Button>
                </InlineStack>
              </InlineStack>
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
      </Layout>
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
