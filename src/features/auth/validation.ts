// Form rules of the sign-in / sign-up page (spec section 5).
import * as v from 'valibot';
import { TEXT } from '../../../contract/errors';
import { passwordError } from '../../../contract/schemas/auth';
import { Email } from '../../../contract/schemas/common';

export function emailError(email: string): string | null {
  if (email.trim() === '') return TEXT.fieldRequired;
  return v.safeParse(Email, email).success ? null : TEXT.incorrectEmail;
}

/** Confirm e-mail must equal the first one, ignoring case. */
export function confirmEmailError(email: string, confirm: string): string | null {
  if (confirm.trim() === '') return TEXT.fieldRequired;
  return email.trim().toLowerCase() === confirm.trim().toLowerCase() ? null : TEXT.emailsDontMatch;
}

export function signUpPasswordError(pw: string): string | null {
  if (pw === '') return TEXT.fieldRequired;
  return passwordError(pw);
}

export interface SignUpValues {
  email: string;
  confirmEmail: string;
  password: string;
}
export function signUpErrors(v: SignUpValues) {
  return {
    email: emailError(v.email),
    confirmEmail: confirmEmailError(v.email, v.confirmEmail),
    password: signUpPasswordError(v.password),
  };
}
export function signInErrors(v: { email: string; password: string }) {
  return {
    email: emailError(v.email),
    password: v.password === '' ? TEXT.fieldRequired : null,
  };
}
