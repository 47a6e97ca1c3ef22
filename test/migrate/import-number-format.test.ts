import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { BUILTIN_FORMATS, isDateFormat, type NumberKind, numberKind } from '../../workers/migrate/src/imports/sheet/number-format.ts';

// Formats seen in real workbooks: Excel's own, locale variants, literals, colours, conditions.
const FORMATS = [
  'General',
  'general',
  'GENERAL;-General',
  '0',
  '0.00',
  '#,##0.00 ;[Red](#,##0.00)',
  '0.00E+00',
  '##0.0E+0',
  '0%',
  '# ?/?',
  '# ??/??',
  '@',
  '"Dr"@',
  '$#,##0.00',
  '[$€-2] #,##0.00',
  '[$-409]d-mmm-yy',
  '[$-F800]dddd, mmmm dd, yyyy',
  '[$-F400]h:mm:ss AM/PM',
  'yyyy-mm-dd',
  'dd/mm/yyyy',
  'd/m/yy h:mm',
  'mmm-yy',
  'mmmm d, yyyy',
  'h:mm',
  'h:mm:ss AM/PM',
  'hh:mm A/P',
  'mm:ss.0',
  '[h]:mm:ss',
  '[mm]:ss',
  '[ss]',
  '[Red][h]:mm',
  '[Red]0.00',
  '[Blue]General',
  '[>=100]0;0.00',
  '"Date: "0',
  '"yyyy"0',
  '\\d0',
  '_(* #,##0_);_(* (#,##0);_(* "-"??_);_(@_)',
  '_-* #,##0.00\\ "€"_-;\\-* #,##0.00\\ "€"_-;_-* "-"??\\ "€"_-;_-@_-',
  '0\\-00',
  '000\\-00\\-0000',
  '*-0',
  '**0',
  '* 0',
  'B1yyyy',
  'B2dd/mm/yyyy',
  'e',
  'ge.m.d',
  'am',
  'a',
  'AM/PM',
  'A/P',
  '上午/下午h"時"mm"分"',
  '"上午/下午 "hh"時"mm"分"ss"秒 "',
  '上',
  '12345',
  '1 2 3',
  '(0)',
  '"unterminated',
  '[unterminated',
  '\\',
  '_',
  '?,???',
  '0.0??',
  '',
  ...Object.values(BUILTIN_FORMATS),
];

describe('isDateFormat', () => {
  it('says what a date-aware reader says of each common format', () => {
    const disagree = FORMATS.filter((format) => isDateFormat(format) !== Boolean(XLSX.SSF.is_date(format)));
    expect(disagree).toEqual([]);
  });

  it('agrees with it on 20,000 formats made of the characters that matter', () => {
    const pieces = ['0', '#', '?', '.', ',', 'E+', '%', '"', '"x"', '\\', '\\-', '_', '*', '@', '[', ']', '[h]', '[Red]', '[$-409]'];
    pieces.push(
      'y',
      'm',
      'd',
      'h',
      's',
      'e',
      'g',
      'b',
      'B1',
      'G',
      'General',
      'AM/PM',
      'A/P',
      'a',
      'A',
      '上午/下午',
      '1',
      '9',
      ' ',
      '(',
      ')',
      ';',
      '-',
      '/',
      ':',
    );
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const disagree: string[] = [];
    let dates = 0;
    for (let k = 0; k < 20_000; k++) {
      let format = '';
      for (let length = 1 + random(8); length > 0; length--) format += pieces[random(pieces.length)];
      const ours = isDateFormat(format);
      if (ours) dates++;
      if (ours !== Boolean(XLSX.SSF.is_date(format))) disagree.push(format);
    }
    expect(disagree.slice(0, 10)).toEqual([]);
    // Both answers are common: the comparison means something.
    expect(dates).toBeGreaterThan(2_000);
    expect(dates).toBeLessThan(18_000);
  });

  it('finds date and time codes outside literals, escapes and brackets only', () => {
    expect(isDateFormat('yyyy-mm-dd')).toBe(true);
    expect(isDateFormat('h:mm')).toBe(true);
    expect(isDateFormat('[h]:mm:ss')).toBe(true);
    expect(isDateFormat('[ss]')).toBe(true);
    expect(isDateFormat('0.00 AM/PM')).toBe(true);
    expect(isDateFormat('General')).toBe(false);
    expect(isDateFormat('0.00E+00')).toBe(false);
    expect(isDateFormat('"days"0')).toBe(false);
    expect(isDateFormat('\\d0')).toBe(false);
    expect(isDateFormat('[Red]0.00')).toBe(false);
    expect(isDateFormat('[$-409]0')).toBe(false);
    expect(isDateFormat('_(* #,##0_)')).toBe(false);
    expect(isDateFormat('@')).toBe(false);
  });
});

describe('numberKind', () => {
  const kind = (format: string): NumberKind => numberKind(format, new Map());

  it('tells a date from a time of day and from a plain number', () => {
    expect(kind('yyyy-mm-dd')).toBe('date');
    expect(kind('d-mmm-yy')).toBe('date');
    expect(kind('m/d/yy h:mm')).toBe('date');
    expect(kind('[$-F800]dddd, mmmm dd, yyyy')).toBe('date');
    expect(kind('h:mm:ss')).toBe('time');
    expect(kind('[h]:mm:ss')).toBe('time');
    expect(kind('mm:ss.0')).toBe('time');
    expect(kind('h "days"')).toBe('time');
    expect(kind('#,##0.00')).toBe('number');
    expect(kind('[Red]"d"0')).toBe('number');
  });

  it('remembers each format once decided', () => {
    const cache = new Map<string, NumberKind>();
    expect(numberKind('h:mm', cache)).toBe('time');
    cache.set('h:mm', 'date');
    expect(numberKind('h:mm', cache)).toBe('date');
  });
});
