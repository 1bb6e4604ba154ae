import { describe, expect, it } from 'vitest';
import { parsePetCount } from '../seed.js';

describe('parsePetCount (--pets)', () => {
  it('reads a whole number, with or without separators', () => {
    expect(parsePetCount('10000', 50)).toBe(10_000);
    expect(parsePetCount('1_000_000', 50)).toBe(1_000_000);
    expect(parsePetCount('1e6', 50)).toBe(1_000_000);
  });

  it('refuses a store too small for every connection to have an available pet of its own', () => {
    expect(parsePetCount('150', 50)).toBe(150);
    expect(() => parsePetCount('149', 50)).toThrow(/at least 150/);
  });

  it('refuses what is not a whole number', () => {
    for (const text of ['', 'many', '1.5', '-3', '1,000,000']) {
      expect(() => parsePetCount(text, 1)).toThrow(/--pets/);
    }
  });
});
