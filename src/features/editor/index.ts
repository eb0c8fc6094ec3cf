// Public surface of the editor feature: the project page (live status until the transcript is ready,
// then the editor). The router imports it as ProjectPage; the projects feature re-exports it as ProjectEditor.
export { ProjectEditor, ProjectEditor as ProjectPage } from './components/EditorPage';
