// Public surface of the editor feature: the project page (live status until the transcript is ready,
// then the editor). The router imports it as ProjectPage.
export { ProjectEditor as ProjectPage } from './components/EditorPage';
