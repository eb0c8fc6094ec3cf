export { SupportWidget } from './SupportWidget';
