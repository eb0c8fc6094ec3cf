// Public surface of the projects feature for the router: the space home (translation list), folder pages
// and the project page (live status, then the editor).
export { ProjectsHome, FolderPage } from './components/ProjectsHome';
