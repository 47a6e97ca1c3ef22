import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { commaList, commaListSetting, hostAllowed } from '#shared/config.ts';

// One comma-list parser and one host allow-list check (workers/shared/config.ts) for every service.

describe('commaList', () => {
  it('trims entries and drops empty ones; unset is empty', () => {
    expect(commaList(' a, b ,,c , ')).toEqual(['a', 'b', 'c']);
    expect(commaList('')).toEqual([]);
    expect(commaList(undefined)).toEqual([]);
    expect(z.object({ L: commaListSetting('X,Y', (e) => e.toLowerCase()) }).parse({})).toEqual({ L: ['x', 'y'] });
    expect(z.object({ L: commaListSetting() }).parse({ L: 'One, Two' })).toEqual({ L: ['One', 'Two'] });
  });
});

describe('hostAllowed', () => {
  it('a host entry allows every port; host:port only that port; case does not matter', () => {
    const allowed = ['db.example', 'legacy.example:5433'];
    expect(hostAllowed(allowed, 'DB.example', 5432)).toBe(true);
    expect(hostAllowed(allowed, 'db.example', 6543)).toBe(true);
    expect(hostAllowed(allowed, 'legacy.example', 5433)).toBe(true);
    expect(hostAllowed(allowed, 'legacy.example', 5432)).toBe(false);
    expect(hostAllowed(allowed, 'evil.example', 5432)).toBe(false);
    expect(hostAllowed(allowed, 'db.example.evil', 5432)).toBe(false);
    expect(hostAllowed([], 'db.example', 5432)).toBe(false);
  });

  it('[::1]:5432 is the IPv6 loopback on port 5432, asked for with or without brackets', () => {
    const allowed = ['[::1]:5432'];
    expect(hostAllowed(allowed, '::1', 5432)).toBe(true);
    expect(hostAllowed(allowed, '[::1]', 5432)).toBe(true);
    expect(hostAllowed(allowed, '::1', 5433)).toBe(false);
    expect(hostAllowed(allowed, '127.0.0.1', 5432)).toBe(false);
  });

  it('[::1] and a bare ::1 allow every port of the IPv6 loopback', () => {
    for (const entry of ['[::1]', '::1']) {
      expect(hostAllowed([entry], '::1', 5432)).toBe(true);
      expect(hostAllowed([entry], '[::1]', 6000)).toBe(true);
      expect(hostAllowed([entry], '::2', 5432)).toBe(false);
    }
  });

  it('malformed entries allow nothing', () => {
    for (const entry of ['db.example:', 'db.example:port', '[::1', '::1]:5432', 'a b', '[db.example]:5432']) {
      expect(hostAllowed([entry], 'db.example', 5432), entry).toBe(false);
      expect(hostAllowed([entry], '::1', 5432), entry).toBe(false);
    }
  });
});
