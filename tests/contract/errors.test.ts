import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { TEXT, maintenanceText } from '../../contract/errors';
import { Password, passwordError } from '../../contract/schemas/auth';

describe('passwordError', () => {
  it('needs at least 6 characters', () => {
    expect(passwordError('')).toBe('At least 6 characters');
    expect(passwordError('abcde')).toBe(TEXT.passwordTooShort);
    expect(passwordError('abcdef')).toBeNull();
  });
  it('refuses whitespace and Cyrillic', () => {
    expect(passwordError('abc def')).toBe('Incorrect password');
    expect(passwordError('abcdef\t')).toBe(TEXT.incorrectPassword);
    expect(passwordError('passwordЖ')).toBe(TEXT.incorrectPassword);
    expect(passwordError('ёёёёёё')).toBe(TEXT.incorrectPassword);
  });
  it('accepts other scripts and symbols', () => {
    expect(passwordError('pässwörd!')).toBeNull();
    expect(passwordError('密码密码密码')).toBeNull();
  });
  it('agrees with the Password schema', () => {
    for (const pw of ['abc', 'abc def', 'пароль12', 'good-pass']) {
      const r = v.safeParse(Password, pw);
      expect(r.success ? null : r.issues[0].message, pw).toBe(passwordError(pw));
    }
  });
});

describe('maintenanceText', () => {
  const local = (h: number, m: number) => new Date(2030, 0, 1, h, m).toISOString();
  it('formats the start time on a 12-hour clock for a 30 minute window', () => {
    expect(maintenanceText(local(14, 5))).toBe('The service will be unavailable from 2:05 pm for 30 minutes');
    expect(maintenanceText(local(9, 30))).toBe('The service will be unavailable from 9:30 am for 30 minutes');
  });
  it('handles midnight and noon', () => {
    expect(maintenanceText(local(0, 0))).toBe('The service will be unavailable from 12:00 am for 30 minutes');
    expect(maintenanceText(local(12, 0))).toBe('The service will be unavailable from 12:00 pm for 30 minutes');
  });
  it('falls back without a valid time and honours another window', () => {
    expect(maintenanceText('not a date')).toBe('The service will be unavailable for 30 minutes');
    expect(maintenanceText(local(23, 59), 45)).toBe('The service will be unavailable from 11:59 pm for 45 minutes');
  });
});

describe('texts', () => {
  it('keeps the spec texts the client matches on', () => {
    expect(TEXT.inactiveUser).toBe('Inactive user');
    expect(TEXT.noAccess).toBe('You have no access to this resource');
    expect(TEXT.creditsSuffix).toBe('credits available.');
    expect(TEXT.unknownError('help@x.example')).toBe('Please contact the support chat or email us at help@x.example.');
  });
});
