// "Get more minutes", opened in place from the minutes balance or a disabled action (never a jump to another
// page): a subscriber who can buy minutes gets the buy-minutes modal; everyone else sees what they have, the
// plans, and where plans are granted by the server's administrator, a way to ask them.
import { Banner, BlockStack, Modal, Text } from '@shopify/polaris';
import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { useCredits } from '../../lib/api/use-credits';
import { useCurrentUser } from '../../lib/api/use-current-user';
import { firstSpace, useSpaces } from '../../lib/api/use-spaces';
import { formatMinutes } from '../../lib/format';
import { errorMessage } from '../../lib/http';
import { currentAppPath } from '../../lib/page';
import { buyMinutesOpenAtom, currentSpaceIdAtom, getMoreMinutesAtom } from '../../lib/state';
import { askAdministrator, useProducts } from './api';
import { balanceFlags } from './rules';

export function GetMoreMinutesModal() {
  const [open, setOpen] = useAtom(getMoreMinutesAtom);
  const setBuy = useSetAtom(buyMinutesOpenAtom);
  const { data: user } = useCurrentUser();
  const { data: products } = useProducts(open);
  const flags = balanceFlags(user, products);
  // A subscriber who can buy minutes goes straight to the pack.
  useEffect(() => {
    if (open && products && flags.canBuyMinutes) {
      setOpen(false);
      setBuy(true);
    }
  }, [open, products, flags.canBuyMinutes, setOpen, setBuy]);
  if (!open || !products || flags.canBuyMinutes) return null;
  return <MoreMinutesDialog admin={products.checkout === 'admin'} onClose={() => setOpen(false)} />;
}

function MoreMinutesDialog({ admin, onClose }: { admin: boolean; onClose(): void }) {
  const spaceId = useAtomValue(currentSpaceIdAtom);
  const { data: spaces } = useSpaces();
  const space = spaces?.find((s) => s.id === spaceId) ?? firstSpace(spaces);
  const { data: credits } = useCredits(space?.id ?? null);
  const [, navigate] = useLocation();
  const [asked, setAsked] = useState<'no' | 'sending' | 'sent'>('no');
  const [error, setError] = useState<string | null>(null);
  const left = credits ? Math.max(0, credits.minutes.total - credits.minutes.used) : null;

  const ask = async () => {
    setAsked('sending');
    setError(null);
    try {
      await askAdministrator(
        `Please add minutes to the Teamspace "${space?.name ?? ''}": ${left === null ? '' : `${formatMinutes(left)} left.`}`,
        currentAppPath(),
      );
      setAsked('sent');
    } catch (e) {
      setError(errorMessage(e));
      setAsked('no');
    }
  };
  const seePlans = () => {
    const from = currentAppPath();
    onClose();
    navigate('/pricing', { state: { from } });
  };

  return (
    <Modal
      open
      onClose={onClose}
      title="Get more minutes"
      primaryAction={
        admin
          ? { content: asked === 'sent' ? 'Request sent' : 'Ask my administrator', onAction: () => void ask(), loading: asked === 'sending', disabled: asked === 'sent' }
          : { content: 'See plans', onAction: seePlans }
      }
      secondaryActions={[{ content: 'Close', onAction: onClose }, ...(admin ? [{ content: 'See plans', onAction: seePlans }] : [])]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          {left !== null ? <Text as="p" variant="headingMd">{`${formatMinutes(left)} left in ${space?.name ?? 'this Teamspace'}`}</Text> : null}
          <Text as="p">
            {admin
              ? 'Plans and minutes on this server are granted by its administrator. Ask them, and they get your request in their inbox.'
              : 'A plan adds minutes every month; they roll over while it is active. Subscribers can also buy extra minutes.'}
          </Text>
          {asked === 'sent' ? <Banner tone="success">Your administrator has your request. You will see the minutes here once they add them.</Banner> : null}
          {error ? <Banner tone="critical">{error}</Banner> : null}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
