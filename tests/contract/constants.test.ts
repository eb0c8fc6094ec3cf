import { describe, expect, it } from 'vitest';
import { analyticsDurationMin, hasEnoughMinutes, minutesNeeded, ADMIN_LIST_LIMIT, PASSWORD_MIN, SPACE_COLORS, CREATE_FORM_DEFAULT_COLOR, DEFAULT_TEAMSPACE_COLOR } from '../../contract/constants';

describe('minutesNeeded', () => {
  it('is the video length in seconds over 60, rounded up', () => {
    expect(minutesNeeded(0)).toBe(0);
    expect(minutesNeeded(1)).toBe(1);
    expect(minutesNeeded(60)).toBe(1);
    expect(minutesNeeded(60.001)).toBe(2);
    expect(minutesNeeded(125)).toBe(3);
    expect(minutesNeeded(-10)).toBe(0);
  });
  it('decides whether the balance is enough', () => {
    expect(hasEnoughMinutes(3, 180)).toBe(true);
    expect(hasEnoughMinutes(3, 181)).toBe(false);
    expect(hasEnoughMinutes(0, 0)).toBe(true);
  });
});

describe('analyticsDurationMin', () => {
  it('is max(1, round(duration/60)) or NA', () => {
    expect(analyticsDurationMin(10)).toBe(1);
    expect(analyticsDurationMin(89)).toBe(1);
    expect(analyticsDurationMin(90)).toBe(2);
    expect(analyticsDurationMin(null)).toBe('NA');
    expect(analyticsDurationMin(Number.NaN)).toBe('NA');
  });
});

describe('constants', () => {
  it('match spec section 9 and 5', () => {
    expect(ADMIN_LIST_LIMIT).toBe(20);
    expect(PASSWORD_MIN).toBe(6);
    expect(DEFAULT_TEAMSPACE_COLOR).toBe('midnight');
    expect(CREATE_FORM_DEFAULT_COLOR).toBe(SPACE_COLORS[1]);
  });
});
