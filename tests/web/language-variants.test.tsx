// Regional variants in the language pickers (issue 31 part 4): a language with variants is a group under its
// name holding its plain entry and its variants; the note of a variant the translation engine has one
// vocabulary for shows under the picker when chosen.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Settings } from '../../contract/schemas/settings';
import { CreateDubModal } from '../../src/features/projects/components/CreateDubModal';
import { languageOptions } from '../../src/features/projects/lib/languages';
import { groupLanguageOptions } from '../../src/lib/format';
import { appHandlers, credits, lang, renderRoute, server, SETTINGS, SPACE } from './projects-harness';

const NOTE = 'The voice speaks Spanish (Latin America); the translation engine has one vocabulary for the language.';
const variant = (id: number, value: string, cc: string, label: string, note: string | null = null) => ({
  ...lang(id, value, cc, label), is_dialect: true, variant_note: note,
});
const TRANSLATION = [
  lang(1, 'en', 'US', 'English'), lang(2, 'es', 'ES', 'Spanish'), lang(4, 'de', 'DE', 'German'), lang(6, 'pt', 'PT', 'Portuguese'),
  variant(101, 'en-GB', 'GB', 'English (United Kingdom)'), variant(102, 'es-419', 'MX', 'Spanish (Latin America)', NOTE),
  variant(103, 'pt-BR', 'BR', 'Portuguese (Brazil)'), variant(106, 'es-ES', 'ES', 'Spanish (Spain)'),
];
const settings: Settings = { ...SETTINGS, languages: { ...SETTINGS.languages, translation: TRANSLATION } };

describe('language pickers: variants under their language', () => {
  it('groups the variants of a language, in id order, where its first option is', () => {
    const groups = groupLanguageOptions(languageOptions(TRANSLATION, { flags: false }));
    const shape = groups.map((g) => ('title' in g ? { [g.title]: g.options.map((o) => o.value) } : g.value));
    expect(shape).toEqual([
      { English: ['en', 'en-GB'] },
      { Spanish: ['es', 'es-419', 'es-ES'] },
      'de',
      { Portuguese: ['pt', 'pt-BR'] },
    ]);
    const es = groups[1] as { options: Array<{ label: string; note?: string }> };
    expect(es.options.map((o) => o.label)).toEqual([
      'Spanish (Español)', 'Latin American Spanish (Español latinoamericano)', 'European Spanish (Español de España)',
    ]);
    expect(es.options[1]!.note).toBe(NOTE);
  });

  it('the create dialog shows the groups and the note of the chosen variant', async () => {
    server.use(...appHandlers({ settings }));
    renderRoute(
      '/spaces/:spaceId',
      `/spaces/${SPACE}`,
      <CreateDubModal open onClose={() => {}} spaceId={SPACE} settings={settings} credits={credits(10)} onCreated={() => {}} />,
    );
    const target = screen.getByLabelText('Target language') as HTMLSelectElement;
    const groups = [...target.querySelectorAll('optgroup')].map((g) => g.label);
    expect(groups).toEqual(['English', 'Spanish', 'Portuguese']);
    const spanish = target.querySelector('optgroup[label="Spanish"]') as HTMLElement;
    expect(within(spanish).getAllByRole('option').map((o) => (o as HTMLOptionElement).value)).toEqual(['es', 'es-419', 'es-ES']);
    // German has no variants: a plain option
    expect(target.querySelector('option[value="de"]')!.parentElement).toBe(target);

    expect(screen.queryByText(NOTE)).toBeNull();
    await userEvent.selectOptions(target, 'es-419');
    expect(await screen.findByText(NOTE)).toBeTruthy();
    await userEvent.selectOptions(target, 'es-ES');
    await waitFor(() => expect(screen.queryByText(NOTE)).toBeNull());
  });
});
