// Voice Clone Library area.
export { default as VoicesPage } from './VoicesPage';
