// Buy additional minutes (spec sections 2, 5, 9): digits only (sign, comma and e blocked), over 10000 clamped,
// empty is 0, a slider with marks 0/2500/5000/7500/10000, price = minutes x unit_amount / 100, checkout disabled
// at 0 or while loading. The cheaper-plan promo shows when a minute costs more than $1.
import { Banner, BlockStack, Button, InlineStack, Modal, RangeSlider, Text, TextField } from '@shopify/polaris';
import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import { useState, type KeyboardEvent } from 'react';
import { useLocation } from 'wouter';
import { useCurrentUser } from '../../lib/api/use-current-user';
import { firstSpace, useSpaces as useSpaceList } from '../../lib/api/use-spaces';
import { buyMinutesOpenAtom, currentSpaceIdAtom, getMoreMinutesAtom } from '../../lib/state';
import { analytics } from '../../lib/analytics';
import { formatMinutes, formatNumber } from '../../lib/format';
import { errorMessage } from '../../lib/http';
import { currentAppPath, routerBase } from '../../lib/page';
import { minutesCheckout, useProducts } from './api';
import { leaveApp } from './leave';
import { ShopBuyMinutesDialog, useShopBilling } from './ShopBilling';
import {
  BUY_MINUTES_MARKS, BUY_MINUTES_MAX, balanceFlags, canCheckoutMinutes, formatMoney, isBlockedMinutesKey, minutesPrice, minutesPriceOf,
  parseMinutesInput, promoBannerText, returnUrl,
} from './rules';

/** Small packs one click away (the slider's scale is thousands). */
const SMALL_PACKS = [10, 30, 60, 120, 300];

export function BuyMinutesModal() {
  const [open, setOpen] = useAtom(buyMinutesOpenAtom);
  if (!open) return null;
  return <BuyMinutesDialog onClose={() => setOpen(false)} />;
}

export function BuyMinutesDialog({ onClose }: { onClose(): void }) {
  // In the embedded build, a shop Teamspace pays extra minutes through the platform (./ShopBilling.tsx).
  const shop = useShopBilling();
  if (shop.loading) return null;
  if (shop.status && shop.spaceId) return <ShopBuyMinutesDialog status={shop.status} spaceId={shop.spaceId} onClose={onClose} />;
  return <CheckoutMinutesDialog onClose={onClose} />;
}

function CheckoutMinutesDialog({ onClose }: { onClose(): void }) {
  const { data: products, error: productsError, isLoading } = useProducts();
  const { data: user } = useCurrentUser();
  const { data: spaces } = useSpaceList();
  const spaceId = useAtomValue(currentSpaceIdAtom);
  const [, navigate] = useLocation();
  const setMore = useSetAtom(getMoreMinutesAtom);
  const [text, setText] = useState('100');
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const minutes = parseMinutesInput(text);
  const price = minutesPriceOf(products);
  const total = minutesPrice(minutes, price?.unit_amount);
  const flags = balanceFlags(user, products);
  const promo = promoBannerText(price?.unit_amount, flags.hasArchivedSubscription);
  const space = spaces?.find((s) => s.id === spaceId) ?? firstSpace(spaces);
  const notOwner = !!space && !!user && space.owner_id !== user.id;
  const free = products?.checkout === 'free';
  const admin = products?.checkout === 'admin';
  const enabled = !notOwner && (free ? minutes > 0 && !loading : canCheckoutMinutes(total, loading || isLoading));

  const onKeyDown = (e: KeyboardEvent) => {
    if (isBlockedMinutesKey(e.key)) e.preventDefault();
  };

  async function checkout() {
    if (!price || !enabled) return;
    setLoading(true);
    setError(null);
    try {
      analytics.beginCheckout([{ item_id: price.id, item_name: 'Extra minutes', price: (price.unit_amount ?? 0) / 100, quantity: minutes }], price.currency.toUpperCase());
      const here = currentAppPath();
      const origin = window.location.origin;
      const r = await minutesCheckout({
        id: price.id,
        quantity: minutes,
        success_url: returnUrl(here, 'payment-successful', routerBase(), origin),
        cancel_url: returnUrl(here, 'payment-credits-canceled', routerBase(), origin),
      });
      leaveApp(r.checkout_url);
    } catch (e) {
      setError(errorMessage(e));
      setLoading(false);
    }
  }

  const seePlans = () => {
    const from = currentAppPath();
    onClose();
    navigate('/pricing', { state: { from } });
  };

  return (
    <Modal
      open
      onClose={onClose}
      title="Buy additional minutes"
      primaryAction={admin ? undefined : { content: free ? 'Add minutes' : 'Checkout', onAction: () => void checkout(), disabled: !enabled, loading }}
      secondaryActions={[{ content: 'Cancel', onAction: onClose }]}
    >
      <Modal.Section>
        <BlockStack gap="400">
          {promo ? (
            <Banner tone="success" title={promo} action={{ content: 'See plans', onAction: seePlans }}>
              <Text as="p">A plan includes its minutes every month and they roll over while it is active.</Text>
            </Banner>
          ) : null}
          {productsError ? <Banner tone="warning">The minute pack could not be loaded. Please try again later.</Banner> : null}
          {admin ? <Banner tone="info" action={{ content: 'Ask my administrator', onAction: () => { onClose(); setMore(true); } }}>Minutes on this server are granted by its administrator.</Banner> : null}
          {notOwner ? <Banner tone="info">Only the owner of this Teamspace can buy minutes for it.</Banner> : null}
          <div onKeyDownCapture={onKeyDown}>
          <TextField
            label="Minutes"
            type="text"
            inputMode="numeric"
            autoComplete="off"
            value={text}
            onChange={(v) => setText(v.replace(/\D+/g, '') === '' ? '' : String(parseMinutesInput(v)))}
            onBlur={() => setText(String(minutes))}
            helpText={`Up to ${formatNumber(BUY_MINUTES_MAX)} minutes at once`}
            disabled={admin}
          />
          </div>
          <InlineStack gap="200" wrap>
            {SMALL_PACKS.map((m) => (
              <Button key={m} pressed={minutes === m} onClick={() => setText(String(m))} disabled={admin} accessibilityLabel={`${m} minutes`}>
                {`${m} min`}
              </Button>
            ))}
          </InlineStack>
          <RangeSlider
            label="Minutes"
            labelHidden
            min={0}
            max={BUY_MINUTES_MAX}
            step={minutes < 500 ? 10 : 100}
            value={minutes}
            onChange={(v) => setText(String(typeof v === 'number' ? v : v[0]))}
            disabled={admin}
          />
          <InlineStack align="space-between">
            {BUY_MINUTES_MARKS.map((m) => (
              <Button key={m} variant="plain" onClick={() => setText(String(m))} disabled={admin}>
                {formatNumber(m)}
              </Button>
            ))}
          </InlineStack>
          <InlineStack align="space-between" blockAlign="center">
            <Text as="span" tone="subdued">
              {price?.unit_amount ? `${formatMoney(price.unit_amount / 100, price.currency)} per minute` : free ? 'No charge on this server' : ''}
            </Text>
            <Text as="span" variant="headingLg">
              {price?.unit_amount ? formatMoney(total, price.currency) : formatMinutes(minutes)}
            </Text>
          </InlineStack>
          {error ? <Banner tone="critical">{error}</Banner> : null}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
