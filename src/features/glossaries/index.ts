// Dictionary (glossaries) area.
export { default as GlossariesPage } from './GlossariesPage';
