import * as v from 'valibot';
import { PASSWORD_MIN } from '../constants';
import { TEXT } from '../errors';
import { Email } from './common';

const CYRILLIC_OR_SPACE = /[\s\u0400-\u04FF]/;
export function passwordError(pw: string): string | null {
  if (pw.length < PASSWORD_MIN) return TEXT.passwordTooShort;
  if (CYRILLIC_OR_SPACE.test(pw)) return TEXT.incorrectPassword;
  return null;
}
export const Password = v.pipe(
  v.string(),
  v.maxLength(256),
  v.check((pw) => pw.length >= PASSWORD_MIN, TEXT.passwordTooShort),
  v.check((pw) => !CYRILLIC_OR_SPACE.test(pw), TEXT.incorrectPassword),
);
export const SignUpRequest = v.object({ email: Email, password: Password });
export const SignInRequest = v.object({ email: Email, password: v.pipe(v.string(), v.minLength(1), v.maxLength(256)) });
export const RefreshRequest = v.object({ refresh_token: v.pipe(v.string(), v.minLength(10), v.maxLength(512)) });
export const SignOutRequest = v.object({ refresh_token: v.optional(v.pipe(v.string(), v.maxLength(512))) });
export const TokenResponse = v.object({
  access_token: v.string(),
  refresh_token: v.string(),
  expires_in: v.number(),
  token_type: v.optional(v.literal('Bearer')),
});
export type TokenResponse = v.InferOutput<typeof TokenResponse>;
export const OidcConfigResponse = v.object({ enabled: v.boolean(), providers: v.array(v.object({ id: v.string(), name: v.string() })) });
