import { describe, expect, it } from 'vitest';
import { signalLevel, signalPercent } from './signal.ts';

describe('signal (behaviour §9: ping mapped to percent of 800 ms)', () => {
  it('maps ping to the percent left of 800 ms', () => {
    expect(signalPercent(0)).toBe(100);
    expect(signalPercent(400)).toBe(50);
    expect(signalPercent(800)).toBe(0);
    expect(signalPercent(2000)).toBe(0);
    expect(signalPercent(-1)).toBeNull();
  });

  it('applies the thresholds: below 33 low, 33-66 medium, 66-95 high, 95+ full, negative none', () => {
    expect(signalLevel(-1)).toBe('none');
    expect(signalLevel(0)).toBe('full');
    expect(signalLevel(40)).toBe('full'); // 95 %
    expect(signalLevel(41)).toBe('high');
    expect(signalLevel(272)).toBe('high'); // 66 %
    expect(signalLevel(273)).toBe('medium');
    expect(signalLevel(536)).toBe('medium'); // 33 %
    expect(signalLevel(537)).toBe('low');
    expect(signalLevel(800)).toBe('low');
  });
});
