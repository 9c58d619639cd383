import { describe, expect, it } from 'vitest';
import { formatDateTime } from './format-date.ts';

describe('date display (behaviour §9: dd.MM.yyyy hh:mm AM/PM in the chosen timezone)', () => {
  it('formats in the user timezone, 12-hour clock', () => {
    expect(formatDateTime('2025-03-04T13:05:00Z', 'Europe/Helsinki')).toBe('04.03.2025 03:05 PM');
    expect(formatDateTime('2025-07-04T06:30:00Z', 'Europe/Helsinki')).toBe('04.07.2025 09:30 AM');
    expect(formatDateTime('2025-03-04T13:05:00Z', 'America/New_York')).toBe('04.03.2025 08:05 AM');
  });

  it('defaults to Europe/Helsinki and survives bad input', () => {
    expect(formatDateTime('2025-01-31T22:30:00Z')).toBe('01.02.2025 12:30 AM');
    expect(formatDateTime('2025-01-31T22:30:00Z', 'Not/AZone')).toBe('01.02.2025 12:30 AM');
    expect(formatDateTime('yesterday')).toBe('yesterday');
  });
});
