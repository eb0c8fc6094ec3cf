// The customer's words (issue 33): a project's word list for speech recognition, and the words recognition is
// given (the list plus the source terms of the project's dictionary). Who may: the project's space members
// (owner and editors), as for every project call (loadProject).
import type { AsrWordsResponse } from '../../../contract/schemas/project';
import type { Db } from '../../db/index';
import type { AppDeps } from '../../deps';
import type { UserRow } from '../../caller';
import { loadProject } from './service';
import { glossarySourceTerms } from './repository';
import { asrWordsOf, cleanWords, saveAsrWords } from './asr-words-store';

/** Terms of the dictionary given to recognition at most (a dictionary may hold thousands). */
export const GLOSSARY_TERMS_FOR_ASR = 300;

export async function getAsrWords(deps: AppDeps, user: UserRow, id: string): Promise<AsrWordsResponse> {
  const { project } = await loadProject(deps, user, id);
  return { words: await asrWordsOf(deps.db, project.id) };
}

/** Access is checked before the body is read (`readWords`): a stranger learns nothing from a validation error. */
export async function setAsrWords(deps: AppDeps, user: UserRow, id: string, readWords: () => Promise<readonly string[]>): Promise<AsrWordsResponse> {
  const { project } = await loadProject(deps, user, id);
  return { words: await saveAsrWords(deps.db, project.id, await readWords()) };
}

/** What recognition of a project is given: its word list, then its dictionary's source terms. */
export async function recognitionTerms(db: Db, project: { id: string; glossary_id: string | null }): Promise<string[]> {
  const words = await asrWordsOf(db, project.id);
  if (!project.glossary_id) return words;
  const terms = await glossarySourceTerms(db, project.glossary_id, GLOSSARY_TERMS_FOR_ASR);
  return cleanWords([...words, ...terms.map((t) => t ?? '')]);
}
