// AI rewrite of a segment in the editor (issue 15): the proposal beside the current text, accepted or discarded;
// without an LLM engine the panel says what to configure; locked by the plan it offers the upgrade.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { upgradeModalAtom } from '../../src/lib/state';
import { LLM_NOT_CONFIGURED_TEXT, REWRITE_UNAVAILABLE_TEXT, RewritePanel, type RewriteAccess } from '../../src/features/editor/components/RewritePanel';
import { appHandlers, renderRoute, segment, server, SPACE } from './projects-harness';

function setup(access: RewriteAccess, answer?: () => Response, staff = false) {
  const calls: unknown[] = [];
  server.use(
    ...appHandlers(),
    http.post('*/api/project/p1/transcript/:seg/rewrite', async ({ request, params }) => {
      calls.push({ seg: params.seg, body: await request.json() });
      return answer ? answer() : HttpResponse.json({ text: 'Hoy: doblaje abierto.', mode: 'shorten', slot_sec: 2, max_chars: 31, chars_per_sec: 15.5 });
    }),
  );
  const onAccept = vi.fn<(id: string, text: string) => void>();
  const seg = { ...segment(3), dst: { lang: 'es', text: 'Hoy vamos a hablar sobre el doblaje de código abierto.' } };
  const r = renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <RewritePanel projectId="p1" segment={seg} access={access} readOnly={false} onAccept={onAccept} staff={staff} />);
  return { ...r, calls, onAccept, seg };
}

describe('AI rewrite panel', () => {
  it('Shorten to fit shows the proposal beside the current text; Accept applies it', async () => {
    const { calls, onAccept, seg } = setup('on');
    await userEvent.click(screen.getByRole('button', { name: 'Shorten to fit' }));
    const cmp = await screen.findByLabelText('Proposal');
    expect(within(cmp).getByText('Hoy vamos a hablar sobre el doblaje de código abierto.')).toBeTruthy();
    expect(within(cmp).getByText('Hoy: doblaje abierto.')).toBeTruthy();
    expect(within(cmp).getByText('Proposal (21 characters; 31 fit 2.0 s)')).toBeTruthy();
    expect(calls).toEqual([{ seg: seg.id, body: { mode: 'shorten', text: seg.dst.text } }]);
    await userEvent.click(within(cmp).getByRole('button', { name: 'Accept' }));
    expect(onAccept).toHaveBeenCalledWith(seg.id, 'Hoy: doblaje abierto.');
    expect(screen.queryByLabelText('Proposal')).toBeNull();
  });

  it('a free instruction is sent; Discard keeps the current text', async () => {
    const { calls, onAccept } = setup('on');
    await userEvent.type(screen.getByLabelText('Your instruction'), 'More formal');
    await userEvent.click(screen.getByRole('button', { name: 'Rewrite' }));
    await userEvent.click(within(await screen.findByLabelText('Proposal')).getByRole('button', { name: 'Discard' }));
    expect(onAccept).not.toHaveBeenCalled();
    expect((calls[0] as { body: unknown }).body).toMatchObject({ mode: 'instruction', instructions: 'More formal' });
  });

  it('shows why the engine failed instead of failing silently', async () => {
    setup('on', () => HttpResponse.json({ detail: 'The language model is not reachable' }, { status: 502 }));
    await userEvent.click(screen.getByRole('button', { name: 'Rephrase' }));
    expect(await screen.findByText('The language model is not reachable')).toBeTruthy();
  });

  it('without an LLM engine it says what to configure; locked by the plan it offers the upgrade; hidden shows nothing', async () => {
    // A customer reads product words; the configuration names are for staff.
    const a = setup('not_configured');
    expect(screen.getByText(REWRITE_UNAVAILABLE_TEXT)).toBeTruthy();
    expect(document.body.textContent).not.toMatch(/LLM_ENGINE|OPENAI_API_KEY/);
    expect(screen.queryByRole('button', { name: 'Shorten to fit' })).toBeNull();
    a.unmount();
    const staff = setup('not_configured', undefined, true);
    expect(screen.getByText(LLM_NOT_CONFIGURED_TEXT)).toBeTruthy();
    staff.unmount();
    const b = setup('locked');
    await userEvent.click(screen.getByRole('button', { name: 'Unlock AI rewrite' }));
    await waitFor(() => expect(b.store.get(upgradeModalAtom)).toEqual({ feature: 'ai_rewrite' }));
    b.unmount();
    setup('hidden');
    expect(screen.queryByRole('region', { name: 'AI rewrite' })).toBeNull();
  });
});
