// Number formats: whether a cell's style shows its number as a plain number, a date or a time of day.

export type NumberKind = 'number' | 'date' | 'time';

export function numberKind(format: string, cache: Map<string, NumberKind>): NumberKind {
  let kind = cache.get(format);
  if (kind !== undefined) return kind;
  kind = 'number';
  if (isDateFormat(format)) {
    // Without literals ("…", \x), fill and spacing characters (*x, _x) and [brackets] (colours,
    // locales, elapsed [h]/[mm]/[ss]): any year or day code makes it a date, else a time.
    const bare = format.replace(/"[^"]*"|\\.|[_*].|\[[^\]]*\]/g, '');
    kind = /[ydebg]/i.test(bare) ? 'date' : 'time';
  }
  cache.set(format, kind);
  return kind;
}

// Number formats built into Excel (those SheetJS knows by id); a workbook's own come from styles.xml.
export const BUILTIN_FORMATS: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'm/d/yy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
  56: '"上午/下午 "hh"時"mm"分"ss"秒 "',
};

/** Excel's "General" (any case) at position i. */
function isGeneral(format: string, i: number): boolean {
  return format.length >= i + 7 && format.slice(i, i + 7).toLowerCase() === 'general';
}

/** An elapsed-time bracket: [h], [mm], [ss] (and their Thai letters). */
const ELAPSED = /\[[HhMmSs\u0E0A\u0E19\u0E17]*\]/;

/**
 * Whether a number format shows a date or a time, decided as Excel's readers (SheetJS's SSF) decide
 * it: outside quoted literals, \x escapes, _x spacing, *x fills and runs of digit placeholders,
 * any of the codes y m d h s e g b, AM/PM, A/P or 上午/下午, or an elapsed-time bracket.
 */
export function isDateFormat(format: string): boolean {
  const n = format.length;
  let i = 0;
  while (i < n) {
    const c = format.charAt(i);
    switch (c) {
      case 'G':
        if (isGeneral(format, i)) i += 6;
        i++;
        break;
      case '"':
        do i++;
        while (i < n && format.charCodeAt(i) !== 34);
        i++;
        break;
      case '\\':
      case '_':
        i += 2;
        break;
      case '@':
        i++;
        break;
      case 'B':
      case 'b':
      case 'M':
      case 'D':
      case 'Y':
      case 'H':
      case 'S':
      case 'E':
      case 'm':
      case 'd':
      case 'y':
      case 'h':
      case 's':
      case 'e':
      case 'g':
        return true;
      case 'A':
      case 'a':
      case '上': {
        const ahead = format.slice(i, i + 5).toUpperCase();
        if (ahead.startsWith('A/P') || ahead === 'AM/PM' || ahead === '上午/下午') return true;
        i++;
        break;
      }
      case '[': {
        // The bracket with its contents, up to the closing ] (or the end of the format).
        let bracket = c;
        while (format.charAt(i++) !== ']' && i < n) bracket += format.charAt(i);
        if (ELAPSED.test(bracket)) return true;
        break;
      }
      case '.':
      case '0':
      case '#':
        // A run of digit placeholders, with what may sit inside one (an E+ exponent, \- before a digit).
        while (i < n) {
          const d = format.charAt(++i);
          if (d === '' || '0#?.,E+-%'.includes(d)) continue;
          if (d === '\\' && format.charAt(i + 1) === '-' && '0#'.includes(format.charAt(i + 2))) continue;
          break;
        }
        break;
      case '?':
        while (format.charAt(++i) === '?') {}
        break;
      case '*':
        i++;
        if (format.charAt(i) === ' ' || format.charAt(i) === '*') i++;
        break;
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9':
        while (i < n && '0123456789'.includes(format.charAt(++i))) {}
        break;
      default:
        i++;
        break;
    }
  }
  return false;
}
