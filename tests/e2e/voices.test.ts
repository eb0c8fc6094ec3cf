// The Voice Clone Library and the editor's speakers panel in Debian Chromium against the real server (built-in
// engines, voice matching): a two-voice video is analysed, one speaker is cloned into the library through the
// page, the other gets an instant clone from the editor's speakers panel; both show up as the speakers' voices.
// Screenshots of the library and of the speakers panel go to test-artifacts/.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeSpeechVideo } from '../fixtures/media';
import { browserSuite, screenshot, signUpThroughUi, uniqueEmail } from './support';

describe('voice clones in the browser', () => {
  const suite = browserSuite({ server: { env: { EMBEDDED_WORKER: '1' } }, context: { viewport: { width: 1366, height: 900 } } });

  it('clones a speaker in the library and makes an instant clone in the editor', async () => {
    const { server } = suite;
    const { page, errors } = await suite.newPage();
    const creds = { email: uniqueEmail('voices'), password: 'secret-pass-1' };
    // the first account of an install is a superuser: every feature is on
    await signUpThroughUi(page, server.url, creds);
    const signIn = await fetch(`${server.url}/api/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(creds) });
    const token = ((await signIn.json()) as { access_token: string }).access_token;
    const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
      const r = await fetch(`${server.url}/api${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
      const body = (await r.json()) as T;
      if (!r.ok) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
      return body;
    };
    const spaceId = (await call<Array<{ id: string }>>('/space/list'))[0]!.id;
    const form = new FormData();
    form.set('file', new Blob([readFileSync(await makeSpeechVideo({ twoSpeakers: true }))], { type: 'video/mp4' }), 'interview.mp4');
    const media = await call<{ id: string }>(`/library/media?space_id=${spaceId}`, { method: 'POST', body: form });
    const project = await call<{ id: string }>(`/project/create_transcript?space_id=${spaceId}`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Interview', src_lang: 'en', dst_lang: 'es', media_id: media.id, num_speakers: 2 }),
    });
    // the analysis runs; each wait ends as soon as the state shows
    let status = '';
    for (const t0 = Date.now(); Date.now() - t0 < 300_000; ) {
      status = (await call<{ status: string }>(`/project/${project.id}`)).status;
      if (status === 'translation_done' || status.endsWith('failed')) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(status).toBe('translation_done');

    // the library: a voice from a project speaker, through the page
    await page.goto(`${server.url}/spaces/${spaceId}/voices`);
    await page.getByText('Voice matching, not cloning').waitFor();
    await page.getByRole('button', { name: 'From a project speaker' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Interviewer');
    await dialog.getByRole('button', { name: 'Create voice' }).click();
    await page.locator('input[value="Interviewer"]').waitFor();
    await page.getByText('Ready', { exact: true }).first().waitFor({ timeout: 60_000 });
    await page.getByText(/voice · pitch \d+ Hz/).first().waitFor();
    await screenshot(page, 'voices-library');

    // the editor: the clone is offered, and an instant clone of the second speaker is made and given to them
    await page.goto(`${server.url}/spaces/${spaceId}/project/${project.id}`);
    const cloneButton = page.getByRole('button', { name: /Make an instant clone of .*'s voice/ }).last();
    await cloneButton.waitFor();
    await cloneButton.click();
    await page.getByRole('button', { name: /Make an instant clone of .*'s voice/ }).last().getByText('Clone this speaker again').waitFor({ timeout: 120_000 });
    const speakers = (await call<{ speakers: Array<{ voice_id: string | null }> }>(`/project/${project.id}`)).speakers;
    expect(speakers.some((s) => s.voice_id?.startsWith('preset:'))).toBe(true);
    const pool = await call<{ voices: Array<{ name: string; preset_id?: string | null }> }>(`/project/${project.id}/voice_pool`);
    expect(pool.voices.filter((v) => v.preset_id).map((v) => v.name).sort()).toEqual([expect.stringMatching(/^Instant clone: /), 'Interviewer']);
    const panel = page.getByText('Speakers and voices').locator('xpath=ancestor::div[contains(@class,"Polaris-ShadowBevel") or contains(@class,"Polaris-Card")][1]');
    await panel.scrollIntoViewIfNeeded();
    await screenshot(page, 'voices-editor-speakers');

    // The cast (issue 31): the first speaker is kept in the cast from the editor ...
    const first = (await call<{ speakers: Array<{ id: string; name: string }> }>(`/project/${project.id}`)).speakers[0]!;
    await page.getByRole('button', { name: `Keep in cast: ${first.name}` }).click();
    await page.getByRole('button', { name: `Keep in cast: ${first.name}` }).getByText('Kept in cast').waitFor();
    const kept = await call<{ members: Array<{ id: string; name: string }> }>(`/space/${spaceId}/cast`);
    expect(kept.members.map((m) => m.name)).toEqual([first.name]);
    // ... renamed in the Voice Clone Library ...
    await page.goto(`${server.url}/spaces/${spaceId}/voices`);
    const nameField = page.getByLabel(`Name of ${first.name}`);
    await nameField.fill('Maria Host');
    await nameField.blur();
    await expect.poll(async () => (await call<{ members: Array<{ name: string }> }>(`/space/${spaceId}/cast`)).members.map((m) => m.name), { timeout: 10_000 }).toEqual(['Maria Host']);
    await page.getByText(/Hz · voices: ES/).first().waitFor();
    await screenshot(page, 'voices-cast');
    // ... and a new project with the same person is recognised: named as in the cast, with an undo in the editor.
    const second = await call<{ id: string }>(`/project/create_transcript?space_id=${spaceId}`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Interview, part 2', src_lang: 'en', dst_lang: 'es', media_id: media.id, num_speakers: 2 }),
    });
    for (const t0 = Date.now(); Date.now() - t0 < 300_000; ) {
      status = (await call<{ status: string }>(`/project/${second.id}`)).status;
      if (status === 'translation_done' || status.endsWith('failed')) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(status).toBe('translation_done');
    const named = (await call<{ speakers: Array<{ id: string; name: string }> }>(`/project/${second.id}`)).speakers;
    expect(named.map((sp) => sp.name)).toContain('Maria Host');
    await page.goto(`${server.url}/spaces/${spaceId}/project/${second.id}`);
    await page.getByText('Recognised as Maria Host from your cast').waitFor();
    await screenshot(page, 'voices-cast-recognised');
    // A voice chosen here becomes the member's voice for the language in the cast.
    await page.getByText("A voice you choose here becomes Maria Host's voice for this language in your cast.").waitFor();
    const select = page.getByLabel('Voice of Maria Host');
    const was = await select.inputValue();
    const pick = (await select.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).find((v) => v && v !== was && !v.startsWith('preset:'))!;
    await select.selectOption(pick);
    await expect.poll(async () => {
      const members = (await call<{ members: Array<{ name: string; voices: Record<string, string> }> }>(`/space/${spaceId}/cast`)).members;
      return Object.values(members.find((m) => m.name === 'Maria Host')?.voices ?? {});
    }, { timeout: 20_000 }).toContain(pick);
    await page.getByRole('button', { name: 'Undo: this speaker is not Maria Host' }).click();
    await page.getByText('Recognised as Maria Host from your cast').waitFor({ state: 'detached' });
    const after = (await call<{ speakers: Array<{ name: string }> }>(`/project/${second.id}`)).speakers;
    expect(after.map((sp) => sp.name)).not.toContain('Maria Host');
    expect(errors).toEqual([]);
  }, 900_000);
});
