// "Publish to product" (issue 32, part 4): in a shop's Teamspace, a dubbed language of the video goes to a product of
// the shop (by default the product the video came from). The dialog shows the target product (or the shop's
// products to pick from), then the publication's progress until Ready or Failed with the platform's own message.
import { Badge, Banner, Button, InlineStack, Modal, ResourceItem, ResourceList, Spinner, Text, TextField, Thumbnail } from '@shopify/polaris';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Publication, PublicationList, ShopProductList } from '../../../../contract/schemas/shop-publish';
import { call, client } from '../../../lib/api/client';
import { errorMessage } from '../../../lib/http';

export interface PublishLanguage {
  lang: string;
  name: string;
}

type Product = ShopProductList['products'][number];

const POLL_MS = 2_000;

function fetchPublications(projectId: string): Promise<PublicationList> {
  return call(client.GET('/api/shop/publish', { params: { query: { project_id: projectId } } }));
}

/** The project's publications (and whether its Teamspace is a shop), polled while one is in flight. */
export function usePublishing(projectId: string) {
  const [data, setData] = useState<PublicationList | null>(null);
  const reload = useCallback(async () => {
    try {
      setData(await fetchPublications(projectId));
    } catch {
      setData((d) => d ?? { shop: false, can_publish: false, publications: [], origin_product: null });
    }
  }, [projectId]);
  useEffect(() => {
    void reload();
  }, [reload]);
  const inFlight = data?.publications.some((p) => p.state === 'uploading' || p.state === 'processing') ?? false;
  useEffect(() => {
    if (!inFlight) return;
    const t = setInterval(() => void reload(), POLL_MS);
    return () => clearInterval(t);
  }, [inFlight, reload]);
  return { data, reload };
}

const STATE_TEXT: Record<Publication['state'], string> = {
  uploading: 'Uploading the video to your store…',
  processing: 'Your store is processing the video…',
  ready: 'Ready: the video is on the product',
  failed: 'The store did not accept the video',
};

function StateBadge({ state }: { state: Publication['state'] }) {
  const tone = state === 'ready' ? 'success' : state === 'failed' ? 'critical' : 'attention';
  const label = state === 'ready' ? 'Ready' : state === 'failed' ? 'Failed' : state === 'uploading' ? 'Uploading' : 'Processing';
  return <Badge tone={tone}>{label}</Badge>;
}

/** Picks a product of the shop (searched by title). */
function ProductPicker({ spaceId, value, onPick }: { spaceId: string; value: Product | null; onPick: (p: Product) => void }) {
  const [q, setQ] = useState('');
  const [products, setProducts] = useState<Product[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const seq = useRef(0);
  useEffect(() => {
    const n = ++seq.current;
    const t = setTimeout(() => {
      call(client.GET('/api/shop/publish/products', { params: { query: { space_id: spaceId, q } } })).then(
        (r) => n === seq.current && (setProducts(r.products), setError(null)),
        (e) => n === seq.current && setError(errorMessage(e)),
      );
    }, q ? 300 : 0);
    return () => clearTimeout(t);
  }, [spaceId, q]);
  return (
    <div data-testid="publish-product-picker">
      <TextField label="Search your products" labelHidden placeholder="Search your products" value={q} onChange={setQ} autoComplete="off" clearButton onClearButtonClick={() => setQ('')} />
      {error ? <Text as="p" tone="critical">{error}</Text> : null}
      {products === null && !error ? <Spinner size="small" accessibilityLabel="Loading products" /> : null}
      {products ? (
        <ResourceList
          items={products}
          emptyState={<Text as="p" tone="subdued">No product matches.</Text>}
          renderItem={(p) => (
            <ResourceItem
              id={p.id}
              onClick={() => onPick(p)}
              accessibilityLabel={`Publish to ${p.title}`}
              media={p.image ? <Thumbnail size="small" source={p.image} alt={p.title} /> : undefined}
            >
              <InlineStack gap="200" blockAlign="center">
                <Text as="span" fontWeight={value?.id === p.id ? 'bold' : 'regular'}>{p.title}</Text>
                {value?.id === p.id ? <Badge tone="info">Selected</Badge> : null}
              </InlineStack>
            </ResourceItem>
          )}
        />
      ) : null}
    </div>
  );
}

export function PublishDialog({
  projectId,
  spaceId,
  language,
  data,
  onClose,
  onChanged,
}: {
  projectId: string;
  spaceId: string;
  language: PublishLanguage;
  data: PublicationList;
  onClose: () => void;
  onChanged: () => Promise<void>;
}) {
  const origin = data.origin_product;
  const [product, setProduct] = useState<Product | null>(origin ? { id: origin.id, title: origin.title, image: null } : null);
  const [choosing, setChoosing] = useState(!origin);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [startedId, setStartedId] = useState<string | null>(null);
  const current = startedId ? data.publications.find((p) => p.id === startedId) ?? null : null;
  const earlier = product ? data.publications.find((p) => p.product_id === product.id && p.language === language.lang) ?? null : null;
  const shown = current ?? null;
  const running = shown?.state === 'uploading' || shown?.state === 'processing';

  const publish = async () => {
    if (!product) return;
    setBusy(true);
    setError(null);
    try {
      const r = await call(client.POST('/api/shop/publish', { body: { project_id: projectId, language: language.lang, product_id: product.id } }));
      setStartedId(r.id);
      setChoosing(false);
      await onChanged();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      onClose={onClose}
      title={`Publish to product: ${language.name}`}
      primaryAction={shown && !running && shown.state === 'ready' ? { content: 'Done', onAction: onClose } : {
        content: shown?.state === 'failed' ? 'Try again' : earlier?.state === 'ready' ? 'Replace the video' : 'Publish',
        onAction: () => void publish(),
        loading: busy || running,
        disabled: busy || running || !product || !data.can_publish,
      }}
      secondaryActions={[{ content: 'Close', onAction: onClose }]}
    >
      <Modal.Section>
        <div data-testid="publish-dialog">
          {!data.can_publish ? <Banner tone="warning"><p>Only the editors of this Teamspace can publish to the store.</p></Banner> : null}
          {product && !choosing ? (
            <InlineStack gap="200" blockAlign="center">
              <Text as="p">
                {'The dubbed video goes to '}
                <Text as="span" fontWeight="bold">{product.title}</Text>
                {product.id === origin?.id ? ' (the product this video came from)' : ''}
              </Text>
              {!shown || !running ? <Button variant="plain" onClick={() => setChoosing(true)}>Choose another product</Button> : null}
            </InlineStack>
          ) : (
            <ProductPicker spaceId={spaceId} value={product} onPick={(p) => (setProduct(p), setChoosing(false))} />
          )}
          {earlier && !shown && earlier.state === 'ready' ? (
            <Text as="p" tone="subdued">{`A ${language.name} video is already on this product: publishing again replaces it.`}</Text>
          ) : null}
          {shown ? (
            <div role="status" data-testid="publish-state" data-state={shown.state} style={{ marginTop: 12 }}>
              <InlineStack gap="200" blockAlign="center">
                {running ? <Spinner size="small" accessibilityLabel="Publishing" /> : null}
                <StateBadge state={shown.state} />
                <Text as="span">{STATE_TEXT[shown.state]}</Text>
              </InlineStack>
              {shown.state === 'failed' && shown.error ? (
                <Banner tone="critical" title="Your store answered">
                  <p data-testid="publish-error">{shown.error}</p>
                </Banner>
              ) : null}
            </div>
          ) : null}
          {error ? <Text as="p" tone="critical">{error}</Text> : null}
        </div>
      </Modal.Section>
    </Modal>
  );
}
