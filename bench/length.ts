// Length that fits (issue 29): `node --import tsx bench/length.ts [--json]`. The share of translated lines within
// +-10% of the source's characters, before and after the shortening, English -> Spanish:
//   - the English set: the LibriVox transcripts of pocketsphinx-testdata (Sense and Sensibility, chapter 2) and
//     more sentences of the same chapter, one segment each, spoken at 14.5 characters per second (the English
//     rate), so each line's budget (server/domains/projects/stages/budget.ts) is its slot at the Spanish rate;
//   - built-in: the built-in MT (apertium eng-spa) without a budget (before), then with the budgets (after: its
//     offline rewrites on the lines over budget), and with every offline rewrite applied to every line;
//   - fake LLM: the OpenAI-compatible MT engine against the tests' fake server (tests/fakes/openai.ts), whose
//     "model" translates with apertium and, asked to shorten, cuts the line at the last word within max_chars. It
//     measures the engine's budget loop (ask again while over budget), not a real model's wording.
import { existsSync, readFileSync } from 'node:fs';
import { createApertiumMt } from '../server/engines/builtin/apertium';
import { createOpenAiMt } from '../server/engines/adapters/openai-chat';
import { shortenOffline } from '../server/engines/offline-shorten';
import { segmentBudget } from '../server/domains/projects/stages/budget';
import { FakeOpenAi, type ChatRequest } from '../tests/fakes/openai';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox/transcription';
const EN_RATE = 14.5;

/** Sense and Sensibility, chapter 2 (the chapter of the LibriVox excerpts). */
const MORE = [
  'Mrs. John Dashwood now installed herself mistress of Norland.',
  'Her mother and sisters-in-law were degraded to the condition of visitors.',
  'As such, however, they were treated by her with quiet civility.',
  'By her husband they were treated with as much kindness as he could feel towards anybody beyond himself, his wife, and their child.',
  'He really pressed them, with some earnestness, to consider Norland as their home.',
  'No plan appeared so eligible to Mrs. Dashwood as remaining there till she could accommodate herself with a house in the neighbourhood.',
  'His invitation was accepted.',
  'A continuance in a place where everything reminded her of former delight was exactly what suited her mind.',
  'In seasons of cheerfulness, no temper could be more cheerful than hers.',
  'She possessed, in a greater degree, that sanguine expectation of happiness which is happiness itself.',
  'But in sorrow she must be equally carried away by her fancy.',
  'Mrs. John Dashwood did not at all approve of what her husband intended to do for his sisters.',
  'To take three thousand pounds from the fortune of their dear little boy would be impoverishing him to the most dreadful degree.',
  'She begged him to think again on the subject.',
  'How could he answer it to himself to rob his child, and his only child too, of so large a sum?',
  'And what possible claim could the Miss Dashwoods have on his generosity to so large an amount?',
  'It was very well known that no affection was ever supposed to exist between the children of any man by different marriages.',
  'Why was he to ruin himself, and their poor little Harry, by giving away all his money to his half sisters?',
  'It was my father\'s last request to me, replied her husband, that I should assist his widow and daughters.',
  'He did not know what he was talking of, I dare say; ten to one but he was light-headed at the time.',
  'Had he been in his right senses, he could not have thought of such a thing as begging you to give away half your fortune from your own child.',
  'He did not stipulate for any particular sum, my dear Fanny.',
  'He only requested me, in general terms, to assist them, and make their situation more comfortable than it was in his power to do.',
  'Perhaps it would have been as well if he had left it wholly to myself.',
  'He could hardly suppose I should neglect them.',
  'But as he required the promise, I could not do less than give it; at least I thought so at the time.',
  'The promise, therefore, was given, and must be performed.',
  'Something must be done for them whenever they leave Norland and settle in a new home.',
  'Well, then, let something be done for them; but that something need not be three thousand pounds.',
  'Consider, she added, that when the money is once parted with, it never can return.',
  'Your sisters will marry, and it will be gone for ever.',
  'If, indeed, it could be restored to our poor little boy.',
  'Why, to be sure, said her husband, very gravely, that would make great difference.',
  'The time may come when Harry will regret that so large a sum was parted with.',
  'If he should have a numerous family, for instance, it would be a very convenient addition.',
  'To be sure it would.',
  'Perhaps, then, it would be better for all parties if the sum were diminished one half.',
  'Five hundred pounds would be a prodigious increase to their fortunes!',
  'Oh! beyond anything great!',
  'What brother on earth would do half so much for his sisters, even if really his sisters!',
];

function englishSet(): string[] {
  const out: string[] = [];
  if (existsSync(LIBRIVOX)) {
    for (const line of readFileSync(LIBRIVOX, 'utf8').split('\n')) {
      const t = line.replace(/<\/?s>/g, '').replace(/\([^)]*\)\s*$/, '').replace(/\s+/g, ' ').trim();
      if (!t) continue;
      // the transcripts are lower-case without punctuation: a sentence as a transcript would hold it
      const s = t.replace(/\bmister\b/g, 'Mr.').replace(/\bjohn dashwood\b/g, 'John Dashwood');
      out.push(s.charAt(0).toUpperCase() + s.slice(1) + '.');
    }
  }
  return [...out, ...MORE];
}

interface Figures {
  lines: number;
  within_10pct: number;
  longer_over_10pct: number;
  shorter_over_10pct: number;
  over_budget: number;
  mean_ratio: number;
}

function figures(src: readonly string[], dst: readonly string[], budgets: readonly number[]): Figures {
  const ratios = dst.map((d, i) => d.length / src[i]!.length);
  const pct = (n: number) => Math.round((1000 * n) / src.length) / 10;
  return {
    lines: src.length,
    within_10pct: pct(ratios.filter((r) => Math.abs(r - 1) <= 0.1).length),
    longer_over_10pct: pct(ratios.filter((r) => r > 1.1).length),
    shorter_over_10pct: pct(ratios.filter((r) => r < 0.9).length),
    over_budget: pct(dst.filter((d, i) => d.length > budgets[i]!).length),
    mean_ratio: Math.round((1000 * ratios.reduce((a, b) => a + b, 0)) / ratios.length) / 1000,
  };
}

/** The fake model: apertium's translation; asked to shorten, the line cut at the last word within max_chars. */
function fakeModel(translations: ReadonlyMap<string, string>) {
  return (body: ChatRequest): string => {
    const user = JSON.parse(body.messages.find((m) => m.role === 'user')!.content) as {
      segments: Array<{ id: number; text?: string; previous_translation?: string; max_chars?: number }>;
    };
    return JSON.stringify({
      translations: user.segments.map((s) => {
        if (s.previous_translation === undefined) return { id: s.id, text: translations.get(s.text!) ?? s.text };
        const max = s.max_chars ?? s.previous_translation.length;
        const cut = s.previous_translation.slice(0, max + 1);
        const at = cut.lastIndexOf(' ');
        return { id: s.id, text: (at > 0 ? cut.slice(0, at) : cut.slice(0, max)).replace(/[,;:]$/, '') };
      }),
    });
  };
}

async function main() {
  const en = englishSet();
  const budgets = en.map((l) => segmentBudget({ start_sec: 0, end_sec: l.length / EN_RATE }, null, 'es').chars);
  const mt = createApertiumMt();
  const before = await mt.translate(en, 'en', 'es');
  const after = await mt.translate(en, 'en', 'es', { maxChars: budgets });
  const everyRewrite = before.map((t) => shortenOffline(t, 'es').text);
  const changed = before.filter((t, i) => t !== after[i]).length;

  const fake = await new FakeOpenAi({ apiKey: null, chatModel: 'bench', chat: fakeModel(new Map(en.map((l, i) => [l, before[i]!]))) }).start();
  let llmBefore: string[];
  let llmAfter: string[];
  try {
    const llm = createOpenAiMt({ baseUrl: `${fake.url}/v1`, apiKey: null, model: 'bench', languages: ['en', 'es'] });
    llmBefore = await llm.translate(en, 'en', 'es');
    llmAfter = await llm.translate(en, 'en', 'es', { maxChars: budgets });
  } finally {
    await fake.close();
  }

  const result = {
    builtin_before: figures(en, before, budgets),
    builtin_after_offline_rewrites: { ...figures(en, after, budgets), lines_rewritten: changed },
    builtin_every_offline_rewrite: figures(en, everyRewrite, budgets),
    fake_llm_before: figures(en, llmBefore, budgets),
    fake_llm_after: figures(en, llmAfter, budgets),
  };
  if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`${en.length} English lines (LibriVox transcripts + Sense and Sensibility ch. 2) -> Spanish; shares in %`);
    console.table(result);
  }
}

await main();
