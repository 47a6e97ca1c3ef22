// An .xlsx, read as it streams out of its zip: the workbook, its first sheet and the parts it needs.

import { clip, type Limits, type Sheet, SheetError } from './common.ts';
import { RelsReader, resolvePart, SharedStringsReader, StylesReader, WorkbookReader } from './parts.ts';
import { SheetDataReader } from './sheet-data.ts';
import { XmlScanner, type XmlHandler } from './xml.ts';
import { readEntryText, readZipDirectory, type ZipEntry } from './zip.ts';

export async function readXlsx(input: Uint8Array, name: string, lim: Limits): Promise<Sheet> {
  const entries = readZipDirectory(input, name, lim);
  const damaged = (why: string) => new SheetError(`"${name}" is damaged and cannot be read as an .xlsx file (${why})`);
  const part = (path: string): ZipEntry | undefined => entries.get(path.toLowerCase());
  const parse = async <H extends XmlHandler>(entry: ZipEntry, handler: H): Promise<H> => {
    const scanner = new XmlScanner(handler, damaged);
    await readEntryText(input, entry, damaged, (text) => scanner.feed(text));
    return handler;
  };
  try {
    // The workbook: where the package says it is, else where Excel puts it.
    let workbookPath = 'xl/workbook.xml';
    if (!part(workbookPath)) {
      const root = part('_rels/.rels');
      const office = root ? (await parse(root, new RelsReader())).ofType('/officeDocument') : undefined;
      if (office) workbookPath = resolvePart('', office.target);
    }
    const workbookEntry = part(workbookPath);
    if (!workbookEntry) {
      if (part('xl/workbook.bin')) {
        throw new SheetError(`"${name}" is a binary workbook (.xlsb), which cannot be read here: save it from Excel as .xlsx`);
      }
      throw new SheetError(`"${name}" could not be read as an .xlsx workbook (it holds no workbook)`);
    }
    const workbook = await parse(workbookEntry, new WorkbookReader());
    if (!workbook.sheet) throw new SheetError(`"${name}" holds no sheets`);
    const folder = workbookPath.slice(0, workbookPath.lastIndexOf('/') + 1);
    const relsEntry = part(`${folder}_rels/${workbookPath.slice(folder.length)}.rels`) ?? part('xl/_rels/workbook.xml.rels');
    const rels = relsEntry ? await parse(relsEntry, new RelsReader()) : new RelsReader();

    // The first sheet's part: by its relationship, else the usual name.
    let sheetEntry: ZipEntry | undefined;
    const rel = workbook.sheet.rid === undefined ? undefined : rels.byId.get(workbook.sheet.rid);
    if (rel && !rel.external) {
      sheetEntry = part(resolvePart(folder, rel.target)) ?? part(`xl/${rel.target.replace(/^\/?xl\//, '')}`) ?? part(rel.target);
    }
    sheetEntry ??= part('xl/worksheets/sheet1.xml');
    if (!sheetEntry) throw damaged(`the part of its first sheet, "${clip(workbook.sheet.name)}", is missing`);

    const stringsRel = rels.ofType('/sharedStrings');
    const stringsEntry = (stringsRel && part(resolvePart(folder, stringsRel.target))) || part(`${folder}sharedStrings.xml`);
    const strings = stringsEntry ? (await parse(stringsEntry, new SharedStringsReader())).strings : [];
    const stylesRel = rels.ofType('/styles');
    const stylesEntry = (stylesRel && part(resolvePart(folder, stylesRel.target))) || part(`${folder}styles.xml`);
    const kinds = stylesEntry ? (await parse(stylesEntry, new StylesReader())).kinds() : [];

    const reader = new SheetDataReader(strings, kinds, workbook.date1904, lim, workbook.sheet.name, damaged);
    await parse(sheetEntry, reader);
    return reader.finish();
  } catch (error) {
    if (error instanceof SheetError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new SheetError(`"${name}" could not be read as an .xlsx workbook (${clip(detail.split('\n')[0] ?? '')})`);
  }
}
