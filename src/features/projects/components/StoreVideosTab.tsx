// "From your store" in the create dialog (issue 32 part 3): inside the platform's admin, a shop Teamspace's products
// with videos (searchable, a page at a time, with thumbnails); picked videos are imported by the server (downloaded
// from the platform's CDN) and dubbed: one video is one project, several are a batch. The source language defaults
// to the shop's primary locale; the shop's published locales are offered first as targets.
import { Banner, BlockStack, Button, Checkbox, InlineStack, Select, Spinner, Tag, Text, TextField, Thumbnail } from '@shopify/polaris';
import { PlayIcon } from '@shopify/polaris-icons';
import { useEffect, useMemo, useState } from 'react';
import useSWRInfinite from 'swr/infinite';
import { useLocation } from 'wouter';
import type { Project } from '../../../../contract/schemas/project';
import type { ShopImportRequest } from '../../../../contract/schemas/shop';
import { getAuthProvider } from '../../../lib/auth/active';
import { isEmbeddedProvider } from '../../../lib/auth/types';
import { groupLanguageOptions } from '../../../lib/format';
import { call, client } from '../../../lib/api/client';
import { apiKey, getApi, useApiGet, type GetAnswer } from '../../../lib/api/use-api-get';
import { TIMEOUT_HEADER, errorMessage, isApiError } from '../../../lib/http';

type Option = { value: string; label: string };

type ProductsPage = GetAnswer<'/api/shop/products'>;
const productsQuery = (spaceId: string, q: string, after: string | null) => ({
  params: { query: { space_id: spaceId, q: q || undefined, after: after ?? undefined } },
});
/** A page's SWR key: the API path with its query, and the request it stands for. */
const productsPage = (spaceId: string, q: string, after: string | null) => {
  const init = productsQuery(spaceId, q, after);
  return [apiKey('/api/shop/products', init), init] as const;
};

/** Whether the Teamspace is a shop (in the embedded build only): its products answer; a non-shop answers 404. */
export function useIsShopSpace(spaceId: string, open: boolean): boolean {
  const embedded = isEmbeddedProvider(getAuthProvider());
  const { data } = useApiGet('/api/shop/products', embedded && open ? productsQuery(spaceId, '', null) : null, {
    shouldRetryOnError: false,
    revalidateOnFocus: false,
  });
  return !!data;
}

export interface StoreVideosTabProps {
  spaceId: string;
  srcOptions: Option[];
  dstOptions: Option[];
  /** Several target languages, or several videos (a batch), allowed by the plan. */
  multiOn: boolean;
  onCreated: (p: Project) => void;
  onBatch: () => void;
}

interface Pick { product_id: string; media_id: string; title: string }

export function StoreVideosTab({ spaceId, srcOptions, dstOptions, multiOn, onCreated, onBatch }: StoreVideosTabProps) {
  const [, navigate] = useLocation();
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setQ(search.trim()), 300);
    return () => clearTimeout(t);
  }, [search]);
  const pages = useSWRInfinite(
    (i, prev: ProductsPage | null) => (i === 0 ? productsPage(spaceId, q, null) : prev?.next ? productsPage(spaceId, q, prev.next) : null),
    ([, init]) => getApi('/api/shop/products', init),
    { revalidateFirstPage: false, revalidateOnFocus: false, shouldRetryOnError: false },
  );
  const products = (pages.data ?? []).flatMap((p) => p.products);
  const last = pages.data?.[pages.data.length - 1];
  const locales = pages.data?.[0]?.locales;

  const [picked, setPicked] = useState<Pick[]>([]);
  const [srcLang, setSrcLang] = useState('');
  const [dstLangs, setDstLangs] = useState<string[]>([]);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Defaults once the shop's locales are known: its primary locale as the source, its first published one as target.
  const srcValues = useMemo(() => new Set(srcOptions.map((o) => o.value)), [srcOptions]);
  const dstValues = useMemo(() => new Set(dstOptions.map((o) => o.value)), [dstOptions]);
  useEffect(() => {
    if (srcLang || !locales || srcOptions.length === 0) return;
    const src = locales.primary && srcValues.has(locales.primary) ? locales.primary : (srcOptions.find((o) => o.value === 'en') ?? srcOptions[0]!).value;
    setSrcLang(src);
    if (dstLangs.length === 0) {
      const first = locales.published.find((l) => l !== src && dstValues.has(l)) ?? dstOptions.find((o) => o.value !== src)?.value;
      if (first) setDstLangs([first]);
    }
  }, [locales, srcOptions, dstOptions, srcValues, dstValues, srcLang, dstLangs.length]);

  const storeLangs = (locales?.published ?? []).filter((l) => dstValues.has(l) && l !== srcLang);
  const labelOf = (v: string) => dstOptions.find((o) => o.value === v)?.label ?? v.toUpperCase();
  const toggleLang = (l: string, on: boolean) =>
    setDstLangs((cur) => (on ? (multiOn ? [...cur.filter((x) => x !== l), l].slice(0, 10) : [l]) : cur.filter((x) => x !== l)));
  const otherOptions = [
    { label: multiOn ? 'Add another language…' : 'Another language…', value: '' },
    ...groupLanguageOptions(dstOptions.filter((o) => o.value !== srcLang && !dstLangs.includes(o.value) && !storeLangs.includes(o.value))),
  ];

  const isPicked = (mediaId: string) => picked.some((p) => p.media_id === mediaId);
  const toggleVideo = (p: Pick, on: boolean) =>
    setPicked((cur) => (on ? (multiOn ? [...cur.filter((x) => x.media_id !== p.media_id), p].slice(0, 10) : [p]) : cur.filter((x) => x.media_id !== p.media_id)));

  const targets = dstLangs.filter((l) => l !== srcLang);
  const create = async () => {
    setError(null);
    if (picked.length === 0) return setError('Pick at least one video');
    if (targets.length === 0) return setError('Choose a target language');
    setSubmitting(true);
    try {
      const body: ShopImportRequest = { items: picked.map((p) => ({ product_id: p.product_id, media_id: p.media_id })), src_lang: srcLang, dst_langs: targets };
      const r = await call(client.POST('/api/shop/import', { params: { query: { space_id: spaceId } }, body, headers: { [TIMEOUT_HEADER]: String(15 * 60_000) } }));
      if (r.batch_id) {
        onBatch();
        navigate(`/spaces/${spaceId}/batch/${r.batch_id}`);
      } else {
        const project = await call(client.GET('/api/project/{id}', { params: { path: { id: r.projects[0]!.project_id } } }));
        onCreated(project);
      }
    } catch (e) {
      setError(isApiError(e) ? (e.detailText ?? errorMessage(e)) : errorMessage(e));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <BlockStack gap="400">
      <TextField
        label="Search your products"
        labelHidden
        placeholder="Search products by title"
        autoComplete="off"
        value={search}
        onChange={setSearch}
        clearButton
        onClearButtonClick={() => setSearch('')}
        disabled={submitting}
      />
      <div data-testid="store-videos" style={{ maxHeight: 320, overflowY: 'auto' }}>
        <BlockStack gap="200">
          {pages.error ? (
            <Banner tone="critical">
              <p>{errorMessage(pages.error)}</p>
            </Banner>
          ) : null}
          {!pages.data && !pages.error ? <Spinner size="small" accessibilityLabel="Loading your products" /> : null}
          {pages.data && products.length === 0 ? (
            <Text as="p" tone="subdued">{q ? `No product with a video matches "${q}"` : 'No product of your store has a video yet'}</Text>
          ) : null}
          {products.flatMap((p) =>
            p.videos.map((v, i) => (
              <InlineStack key={v.id} gap="300" blockAlign="center" wrap={false}>
                <Checkbox
                  label={`${p.title}${p.videos.length > 1 ? ` (video ${i + 1})` : ''}`}
                  labelHidden
                  checked={isPicked(v.id)}
                  disabled={submitting || v.status !== 'READY'}
                  onChange={(on) => toggleVideo({ product_id: p.id, media_id: v.id, title: p.title }, on)}
                />
                <Thumbnail source={v.thumbnail ?? p.thumbnail ?? PlayIcon} alt={v.alt ?? p.title} size="small" />
                <BlockStack gap="050">
                  <Text as="span" fontWeight="semibold">{p.title}{p.videos.length > 1 ? ` · video ${i + 1}` : ''}</Text>
                  <Text as="span" tone="subdued" variant="bodySm">
                    {v.status !== 'READY' ? `Not ready in your store (${v.status.toLowerCase()})` : v.alt || (v.height ? `${v.width}×${v.height}` : 'Video')}
                  </Text>
                </BlockStack>
              </InlineStack>
            )),
          )}
          {last?.next ? (
            <div>
              <Button variant="plain" loading={pages.isValidating} onClick={() => void pages.setSize(pages.size + 1)}>
                More products
              </Button>
            </div>
          ) : null}
        </BlockStack>
      </div>
      {picked.length > 0 && (
        <Text as="p" variant="bodySm" tone="subdued">
          {picked.length === 1 ? `1 video picked: ${picked[0]!.title}` : `${picked.length} videos picked: they start as one batch`}
        </Text>
      )}
      {!multiOn && (
        <Text as="p" variant="bodySm" tone="subdued">One video into one language on your plan: several at once need a plan with several languages.</Text>
      )}
      <Select label="Source language" options={srcOptions} value={srcLang} onChange={setSrcLang} disabled={submitting} />
      <BlockStack gap="200">
        <Text as="p">Target languages</Text>
        {storeLangs.length > 0 && (
          <InlineStack gap="300">
            {storeLangs.map((l) => (
              <Checkbox key={l} label={labelOf(l)} checked={dstLangs.includes(l)} onChange={(on) => toggleLang(l, on)} disabled={submitting} />
            ))}
          </InlineStack>
        )}
        {storeLangs.length > 0 && <Text as="p" variant="bodySm" tone="subdued">Your store's published languages come first.</Text>}
        <Select label="Other target language" labelHidden options={otherOptions} value="" onChange={(v) => v && toggleLang(v, true)} disabled={submitting} />
        {dstLangs.filter((l) => !storeLangs.includes(l)).length > 0 && (
          <InlineStack gap="200">
            {dstLangs.filter((l) => !storeLangs.includes(l)).map((l) => (
              <Tag key={l} onRemove={() => toggleLang(l, false)} accessibilityLabel={`Remove ${labelOf(l)}`}>{labelOf(l)}</Tag>
            ))}
          </InlineStack>
        )}
      </BlockStack>
      {error && (
        <Banner tone="critical" onDismiss={() => setError(null)}>
          <p>{error}</p>
        </Banner>
      )}
      {submitting && <Text as="p" variant="bodySm" tone="subdued">Bringing the videos over from your store…</Text>}
      <InlineStack align="end">
        <Button variant="primary" onClick={() => void create()} loading={submitting} disabled={picked.length === 0 || targets.length === 0}>
          {picked.length > 1 ? `Create ${picked.length} dubs` : 'Create dub'}
        </Button>
      </InlineStack>
    </BlockStack>
  );
}
