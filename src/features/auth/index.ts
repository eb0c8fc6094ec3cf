// Sign-in / sign-up (identity service) and the OIDC callback page.
export { emailError, confirmEmailError, signUpPasswordError, signUpErrors, signInErrors } from './validation';
