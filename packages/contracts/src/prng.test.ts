import { describe, expect, it } from 'vitest';
import { createPrng } from './prng.ts';

describe('createPrng', () => {
  it('gives the same sequence for the same seed, and another for another seed', () => {
    const draw = (seed: number) => {
      const prng = createPrng(seed);
      return Array.from({ length: 5 }, () => prng.next());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    for (const value of draw(7)) expect(value >= 0 && value < 1).toBe(true);
  });

  it('keeps int, pick, sample and shuffle within what they are given', () => {
    const prng = createPrng(1);
    for (let i = 0; i < 100; i += 1) {
      const value = prng.int(3, 5);
      expect(value >= 3 && value <= 5 && Number.isInteger(value)).toBe(true);
    }
    const items = ['a', 'b', 'c', 'd'];
    expect(items).toContain(prng.pick(items));
    expect(() => prng.pick([])).toThrow();
    const sample = prng.sample(items, 2);
    expect(sample).toHaveLength(2);
    expect(items.filter((item) => sample.includes(item))).toEqual(sample);
    expect([...prng.shuffle(items)].sort()).toEqual(items);
  });
});
