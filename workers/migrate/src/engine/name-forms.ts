// How names compare: a source column's or table's name in the forms it may take in the destination
// (case, separators, plurals, abbreviations, prefixes and suffixes), each with how it was derived.

const ABBREVIATIONS: Record<string, string> = {
  no: 'number',
  num: 'number',
  nbr: 'number',
  qty: 'quantity',
  amt: 'amount',
  desc: 'description',
  descr: 'description',
  pos: 'position',
  wt: 'weight',
  dt: 'date',
  ts: 'time',
  addr: 'address',
  tel: 'phone',
  cat: 'category',
  ctry: 'country',
  st: 'state',
  dob: 'birth_date',
  yr: 'year',
};
const SUFFIXES = new Set(['id', 'ref', 'no', 'flag', 'code', 'cd', 'ind', 'yn', 'txt', 'desc']);
const PREFIXES = new Set(['full', 'home', 'tbl', 'the', 'is', 'has']);

/** A name's words: camelCase and separators split, lower case. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const singular = (w: string) =>
  w.endsWith('ies') && w.length > 4 ? `${w.slice(0, -3)}y` : w.endsWith('s') && !w.endsWith('ss') && w.length > 3 ? w.slice(0, -1) : w;
/** The comparable form of a list of words: joined, each singular. */
const joined = (ws: string[]) => ws.map(singular).join('');

type Form = { key: string; how: string; score: number };

/** The forms a source column's name may take in the destination, best first, each with how it was derived. */
export function nameForms(column: string, table: string): Form[] {
  const ws = words(column);
  const forms: Form[] = [];
  const add = (list: string[], how: string, score: number) => {
    if (list.length && !forms.some((f) => f.key === joined(list))) forms.push({ key: joined(list), how, score });
  };
  const expand = (list: string[]) => list.map((w) => ABBREVIATIONS[w] ?? w).flatMap((w) => w.split('_'));
  add(ws, ws.join('_') === column ? 'the same name' : 'the same name apart from case and separators', 100);
  const expanded = expand(ws);
  if (expanded.join() !== ws.join())
    add(
      expanded,
      `${ws
        .filter((w) => ABBREVIATIONS[w])
        .map((w) => `${w} read as ${ABBREVIATIONS[w]}`)
        .join(', ')}`,
      90,
    );
  const tableWords = words(table).map(singular);
  const tablePrefix = ws.length > tableWords.length && tableWords.every((w, i) => singular(ws[i]!) === w);
  const last = ws.at(-1)!;
  const withoutSuffix = ws.length > 1 && SUFFIXES.has(last) ? ws.slice(0, -1) : null;
  const first = ws[0]!;
  const withoutPrefix = ws.length > 1 && PREFIXES.has(first) ? ws.slice(1) : null;
  if (tablePrefix) add(ws.slice(tableWords.length), `${column} without the table's name ${table}`, 85);
  if (withoutPrefix) add(withoutPrefix, `${column} without the prefix ${first}_`, 80);
  if (withoutSuffix) add(withoutSuffix, `${column} without the suffix _${last}`, 80);
  if (withoutSuffix) add(expand(withoutSuffix), `${column} without the suffix _${last}`, 75);
  if (tablePrefix && withoutSuffix && ws.length - 1 > tableWords.length)
    add(ws.slice(tableWords.length, -1), `${column} without the table's name and the suffix _${last}`, 70);
  if (withoutPrefix && withoutSuffix && ws.length > 2)
    add(ws.slice(1, -1), `${column} without the prefix ${first}_ and the suffix _${last}`, 65);
  if (expanded.join() !== ws.join() && tablePrefix)
    add(expand(ws.slice(tableWords.length)), `${column} without the table's name, abbreviations spelled out`, 70);
  return forms;
}

/** The comparable forms of a destination column's name (as is and abbreviations spelled out). */
export function destForms(column: string): string[] {
  const ws = words(column);
  return [...new Set([joined(ws), joined(ws.map((w) => ABBREVIATIONS[w] ?? w).flatMap((w) => w.split('_')))])];
}

/** Lower case without separators or a `tbl` prefix or a plural s: `tblRaceEntry` ~ `race_entries`. */
export const tableForm = (name: string) => joined(words(name).filter((w, i) => !(i === 0 && w === 'tbl')));
