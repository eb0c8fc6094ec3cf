// Plans, minutes and payments: pricing, checkout, the buy-minutes and upgrade modals, the account's plan section
// (pages and the section load lazily from their files).
export { BillingHost } from './BillingHost';
export { PRODUCTS_KEY } from './api';
export { paymentContextFrom } from './rules';
