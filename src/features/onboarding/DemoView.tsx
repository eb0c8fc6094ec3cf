// The demo view (spec section 4): for trial users in the demo_project group, on the Translation page, the demo
// video's cover in each language it can be opened in. A click opens the user's demo project in that language in
// the editor: made on the first click (transcribed, translated and dubbed by the server at no cost), the same
// project on the next ones.
import { Badge, BlockStack, Button, Card, InlineStack, Spinner, Text } from '@shopify/polaris';
import { useState } from 'react';
import { useSWRConfig } from 'swr';
import { useLocation } from 'wouter';
import { useCurrentUser } from '../../lib/api/use-current-user';
import { errorMessage } from '../../lib/http';
import { useSnackbar } from '../../ui/snackbars';
import { demoOffered, openDemo, useDemoCovers } from './demo-api';
import './onboarding.css';
import { formatLanguage } from '../../lib/format';

function minutes(sec: number): string {
  return sec < 60 ? `${Math.round(sec)} s` : `${Math.round(sec / 60)} min`;
}

export function DemoView() {
  const { data: user } = useCurrentUser();
  const offered = !!user && demoOffered(user);
  const { data, error } = useDemoCovers(offered);
  const [opening, setOpening] = useState<string | null>(null);
  const [, navigate] = useLocation();
  const snackbar = useSnackbar();
  const { mutate } = useSWRConfig();
  if (!offered) return null;
  // The demo is optional: when the server has none (not installed) the page simply goes without it.
  if (error) return null;

  async function open(lang: string) {
    setOpening(lang);
    try {
      const p = await openDemo(lang, mutate);
      navigate(`/spaces/${p.space_id}/project/${p.id}`);
    } catch (e) {
      snackbar.show(errorMessage(e));
      setOpening(null);
    }
  }

  return (
    <div data-tour="demo-view" className="ds-demo">
      <Card>
        <BlockStack gap="300">
          <BlockStack gap="100">
            <Text as="h2" variant="headingMd">
              Try a demo project
            </Text>
            <Text as="p" tone="subdued">
              {data
                ? `"${data.title}" (${minutes(data.duration)}, English), transcribed, translated and dubbed for you. Pick a language: it costs no minutes.`
                : 'A short English video, transcribed, translated and dubbed for you. It costs no minutes.'}
            </Text>
          </BlockStack>
          {!data ? (
            <InlineStack>
              <Spinner size="small" accessibilityLabel="Loading the demo" />
            </InlineStack>
          ) : (
            <ul className="ds-demo-covers" aria-label="Demo languages">
              {data.languages.map((l) => (
                <li key={l.dst_lang} className="ds-demo-cover" data-lang={l.dst_lang}>
                  <img src={l.cover_url} alt={`${data.title} in ${formatLanguage(l.dst_lang, l.label)}`} loading="lazy" />
                  <div className="ds-demo-cover-body">
                    <InlineStack align="space-between" blockAlign="center" gap="200">
                      <Text as="span" variant="headingSm">
                        {formatLanguage(l.dst_lang, l.label)}
                      </Text>
                      {l.project_id ? <Badge tone={l.status === 'merging_done' ? 'success' : 'info'}>{l.status === 'merging_done' ? 'Ready' : 'In progress'}</Badge> : null}
                    </InlineStack>
                    <Button
                      fullWidth
                      variant={l.project_id ? 'secondary' : 'primary'}
                      loading={opening === l.dst_lang}
                      disabled={opening !== null && opening !== l.dst_lang}
                      onClick={() => void open(l.dst_lang)}
                      accessibilityLabel={`Open the demo in ${formatLanguage(l.dst_lang, l.label)}`}
                    >
                      {l.project_id ? 'Open demo' : `Dub into ${formatLanguage(l.dst_lang, l.label)}`}
                    </Button>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </BlockStack>
      </Card>
    </div>
  );
}
