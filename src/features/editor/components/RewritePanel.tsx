// AI rewrite of the selected segment (issue 15): Shorten to fit (the server knows the slot and the voice's
// speech rate), Rephrase, or a free instruction. The proposal is shown beside the current text, to accept
// (it becomes the segment's translation, saved like any edit) or discard. Without an LLM engine the panel says
// what to configure; a plan without the feature shows the upgrade offer; it never fails silently.
import { Banner, BlockStack, Button, Card, InlineStack, Text, TextField } from '@shopify/polaris';
import { useSetAtom } from 'jotai';
import { useEffect, useState } from 'react';
import type { SegmentRewriteResponse } from '../../../../contract/schemas/tools';
import { errorMessage } from '../../../lib/http';
import { upgradeModalAtom } from '../../../lib/state';
import { rewriteSegment } from '../api';
import type { EditorSegment } from '../lib/segments';
import { formatClock } from '../lib/time';

/** What staff (superusers) read: how to switch it on. Customers never see configuration names. */
export const LLM_NOT_CONFIGURED_TEXT =
  'AI rewrite needs a language model on this server: set LLM_ENGINE=openai with OPENAI_API_KEY, or OPENAI_CHAT_BASE_URL for a self-hosted OpenAI-compatible server (Ollama, vLLM).';
/** What a customer reads when the server has no language model. */
export const REWRITE_UNAVAILABLE_TEXT = 'AI rewrite is not available on this server yet. Ask your administrator to turn it on.';

export type RewriteAccess = 'on' | 'not_configured' | 'locked' | 'hidden';

export interface RewritePanelProps {
  projectId: string;
  segment: EditorSegment | null;
  access: RewriteAccess;
  readOnly: boolean;
  onAccept: (segmentId: string, text: string) => void;
  /** Staff see how to configure what is missing. */
  staff?: boolean;
}

export function RewritePanel({ projectId, segment, access, readOnly, onAccept, staff = false }: RewritePanelProps) {
  const setUpgrade = useSetAtom(upgradeModalAtom);
  const [instruction, setInstruction] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [proposal, setProposal] = useState<(SegmentRewriteResponse & { segmentId: string; from: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const segId = segment?.id ?? null;
  useEffect(() => {
    setProposal(null);
    setError(null);
  }, [segId]);
  if (access === 'hidden') return null;

  const ask = async (mode: 'shorten' | 'rephrase' | 'instruction') => {
    if (!segment) return;
    setBusy(mode);
    setError(null);
    try {
      const r = await rewriteSegment(projectId, segment.id, { mode, text: segment.dst.text, ...(mode === 'instruction' ? { instructions: instruction } : {}) });
      setProposal({ ...r, segmentId: segment.id, from: segment.dst.text });
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Card>
      <section aria-label="AI rewrite">
        <BlockStack gap="300">
          <Text as="h2" variant="headingSm">
            AI rewrite{segment ? ` · segment at ${formatClock(segment.start)}` : ''}
          </Text>
          {access === 'not_configured' && (
            <Banner tone="info">
              <p>{staff ? LLM_NOT_CONFIGURED_TEXT : REWRITE_UNAVAILABLE_TEXT}</p>
            </Banner>
          )}
          {access === 'locked' && (
            <BlockStack gap="200">
              <Text as="p" tone="subdued">Shorten a line to fit its slot, rephrase it, or rewrite it your way.</Text>
              <div>
                <Button onClick={() => setUpgrade({ feature: 'ai_rewrite' })}>Unlock AI rewrite</Button>
              </div>
            </BlockStack>
          )}
          {access === 'on' && !segment && <Text as="p" tone="subdued">Select a segment in the transcript.</Text>}
          {access === 'on' && segment && (
            <BlockStack gap="200">
              <InlineStack gap="200">
                <Button onClick={() => void ask('shorten')} loading={busy === 'shorten'} disabled={!!busy || readOnly || !segment.dst.text.trim()}>
                  Shorten to fit
                </Button>
                <Button onClick={() => void ask('rephrase')} loading={busy === 'rephrase'} disabled={!!busy || readOnly || !segment.dst.text.trim()}>
                  Rephrase
                </Button>
              </InlineStack>
              <TextField
                label="Your instruction"
                autoComplete="off"
                value={instruction}
                onChange={setInstruction}
                placeholder="e.g. more formal, use “you”"
                connectedRight={
                  <Button onClick={() => void ask('instruction')} loading={busy === 'instruction'} disabled={!!busy || readOnly || !instruction.trim() || !segment.dst.text.trim()}>
                    Rewrite
                  </Button>
                }
              />
              {error && <Text as="p" tone="critical">{error}</Text>}
              {proposal && proposal.segmentId === segment.id && (
                <div className="ed-rewrite-compare" aria-label="Proposal">
                  <div>
                    <Text as="h3" variant="bodySm" tone="subdued">Current ({proposal.from.length} characters)</Text>
                    <p data-rewrite="current">{proposal.from}</p>
                  </div>
                  <div>
                    <Text as="h3" variant="bodySm" tone="subdued">
                      Proposal ({proposal.text.length} characters{proposal.mode === 'shorten' ? `; ${proposal.max_chars} fit ${proposal.slot_sec.toFixed(1)} s` : ''})
                    </Text>
                    <p data-rewrite="proposal">{proposal.text}</p>
                  </div>
                  <InlineStack gap="200">
                    <Button variant="primary" onClick={() => { onAccept(proposal.segmentId, proposal.text); setProposal(null); }} disabled={readOnly}>
                      Accept
                    </Button>
                    <Button onClick={() => setProposal(null)}>Discard</Button>
                  </InlineStack>
                </div>
              )}
            </BlockStack>
          )}
        </BlockStack>
      </section>
    </Card>
  );
}
