import { describe, expect, it } from 'vitest';
import { DateOrDateTime, Text, TEXT_MESSAGES, TimestampInput } from './common.ts';

describe('Text', () => {
  it.each(['', 'Ward A', 'جناح', '🧪👩‍⚕️', '𝔘𝔙', 'e\u0301', '\u202Eevil'])('accepts %j', (value) => {
    expect(Text().safeParse(value).success).toBe(true);
  });

  it.each([
    ['a\u0000b', TEXT_MESSAGES.nul],
    ['\uD800', TEXT_MESSAGES.surrogate],
    ['x\uDC00', TEXT_MESSAGES.surrogate],
    ['\uDBFF\uDBFF', TEXT_MESSAGES.surrogate],
    ['\uDC00\uD800', TEXT_MESSAGES.surrogate],
  ])('refuses %j with a message saying why', (value, message) => {
    const parsed = Text().safeParse(value);
    expect(parsed.error?.issues[0]?.message).toBe(message);
  });

  it('keeps chained limits and messages of its field', () => {
    const name = Text({ error: 'Name is required' }).trim().min(1, 'Name is required').max(3);
    expect(name.safeParse('  ab ').data).toBe('ab');
    expect(name.safeParse('   ').error?.issues[0]?.message).toBe('Name is required');
    expect(name.safeParse(7).error?.issues[0]?.message).toBe('Name is required');
    expect(name.safeParse('abcd').success).toBe(false);
  });
});

describe('dates and timestamps PostgreSQL stores', () => {
  it.each(['0001-01-01', '9999-12-31', '0001-01-01T00:00:00Z', '0001-01-01T01:00:00+01:00', '9999-12-31T23:59:59.999Z', '9999-12-31T00:00:00-23:59'])(
    'accepts %s',
    (value) => {
      expect(DateOrDateTime.safeParse(value).success).toBe(true);
      if (value.includes('T')) expect(TimestampInput.safeParse(value).success).toBe(true);
    },
  );

  it.each(['0000-01-01', '0000-12-31T23:59:59Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:59:00-23:59', '10000-01-01', '2024-02-30'])(
    'refuses %s',
    (value) => {
      expect(DateOrDateTime.safeParse(value).success).toBe(false);
      expect(TimestampInput.safeParse(value).success).toBe(false);
    },
  );
});
