// Admin area (superusers).
export { customerQuery, customersKey, useCustomers, downloadCustomersCsv, saveAppFlags, type CustomerFilter, type AppFlags } from './api';
export { ADMIN_TABS, type AdminSection } from './AdminPage';
