import { describe, expect, it } from 'vitest';
import { isoWeek, weeksOf } from './repository.ts';

describe('ISO weeks', () => {
  it('follow ISO 8601 across year ends, whatever weekday the year starts on', () => {
    expect(isoWeek(2024, 12, 30)).toBe('2025-W01');
    expect(isoWeek(2026, 12, 31)).toBe('2026-W53');
    expect(isoWeek(2027, 1, 3)).toBe('2026-W53');
    expect(isoWeek(2027, 1, 4)).toBe('2027-W01');
    // Years whose 4 January is a Monday (2021), a Saturday (2020) and a Sunday (2026).
    expect(isoWeek(2021, 1, 4)).toBe('2021-W01');
    expect(isoWeek(2021, 1, 3)).toBe('2020-W53');
    expect(isoWeek(2020, 1, 4)).toBe('2020-W01');
    expect(isoWeek(2019, 12, 30)).toBe('2020-W01');
    expect(isoWeek(2026, 1, 4)).toBe('2026-W01');
    expect(isoWeek(2026, 1, 5)).toBe('2026-W02');
    expect(isoWeek(2030, 3, 4)).toBe('2030-W10');
  });

  it('lists every week a period touches, oldest first', () => {
    expect(weeksOf('2026-12-28', '2027-01-11')).toEqual(['2026-W53', '2027-W01', '2027-W02']);
    expect(weeksOf('2030-03-05', '2030-03-05')).toEqual(['2030-W10']);
  });
});
