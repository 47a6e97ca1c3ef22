import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { textPdf } from '../../scripts/graph-standin/pdf';
import {
  InflatedTooLarge,
  MAX_INFLATED_BYTES,
  extractText,
  htmlToText,
  pdfToText,
  textKindOf,
} from '../../workers/mail/src/attachment-text';

/** The attachment reader the Worker's text route and the command line share (web-standard code, run here in Node). */

const bytes = (b: Buffer) => new Uint8Array(b);

/** A PDF of one content stream, Flate-compressed when asked, as PDF writers commonly make them. */
function pdfWith(content: string, flate: boolean): Uint8Array<ArrayBuffer> {
  const data = flate ? deflateSync(Buffer.from(content, 'latin1')) : Buffer.from(content, 'latin1');
  const dict = `<< /Length ${data.length}${flate ? ' /Filter /FlateDecode' : ''} >>`;
  return bytes(
    Buffer.concat([
      Buffer.from(`%PDF-1.5\n1 0 obj\n${dict}\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1'),
    ]),
  );
}

describe('PDF', () => {
  it('the stand-in’s one-page PDF: the title and each line', async () => {
    const text = await pdfToText(bytes(textPdf('Race card (Flemington)', ['Race 4: Silver Arrow, barrier 4', 'Trainer: J. Smith'])));
    expect(text.split('\n').filter(Boolean)).toEqual(['Race card (Flemington)', 'Race 4: Silver Arrow, barrier 4', 'Trainer: J. Smith']);
  });

  it('Flate streams, TJ arrays with kerning and word gaps, hex strings, escapes and line moves', async () => {
    const content =
      'BT /F1 12 Tf 72 700 Td [(Sil) -15 (ver) -600 (Arrow)] TJ 0 -14 Td <4261727269657220> Tj (4 \\(inside\\)) Tj T* (next\\nline) Tj ET';
    for (const flate of [true, false]) {
      expect(await pdfToText(pdfWith(content, flate))).toBe('Silver Arrow\nBarrier 4 (inside)\nnext\nline');
    }
  });

  it('image and font streams are skipped; a stream with another filter is skipped, not misread', async () => {
    const image = Buffer.from(
      '%PDF-1.4\n1 0 obj\n<< /Type /XObject /Subtype /Image /Length 8 >>\nstream\n(Tj) Tj \nendstream\nendobj\n2 0 obj\n<< /Length 9 /Filter /DCTDecode >>\nstream\n(No) Tj  \nendstream\nendobj\n',
      'latin1',
    );
    expect(await pdfToText(bytes(image))).toBe('');
  });

  it('Flate streams that inflate past the cap are refused (the route answers 413), not inflated whole', async () => {
    const bomb = deflateSync(Buffer.alloc(MAX_INFLATED_BYTES + 1024 * 1024, 0x20));
    const dict = `<< /Length ${bomb.length} /Filter /FlateDecode >>`;
    const pdf = Buffer.concat([
      Buffer.from(`%PDF-1.5\n1 0 obj\n${dict}\nstream\n`, 'latin1'),
      bomb,
      Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1'),
    ]);
    expect(bomb.length).toBeLessThan(100_000);
    await expect(pdfToText(bytes(pdf))).rejects.toBeInstanceOf(InflatedTooLarge);
  });

  it('something that is not a PDF is an error (the route answers 415)', async () => {
    await expect(pdfToText(bytes(Buffer.from('hello')))).rejects.toThrow('not a PDF');
  });
});

describe('HTML and plain text', () => {
  it('HTML without scripts, styles, comments and markup; entities decoded; blocks as lines', () => {
    const html =
      '<html><head><title>T</title><style>p{color:red}</style></head><body><!-- hidden --><p>Track &amp; weather:&nbsp;Good&#160;4</p><div>Rail &#x2B;3m<br/>out</div><script>alert(1)</script><ul><li>one</li><li>two</li></ul></body></html>';
    expect(htmlToText(html)).toBe('Track & weather: Good 4\nRail +3m\nout\none\ntwo');
  });

  it('markup of any shape is read in linear time (unclosed styles, an unclosed tag run)', () => {
    expect(htmlToText('<style>'.repeat(700_000))).toBe('');
    expect(htmlToText(`<p>a</p>${'<p '.repeat(166_000)}`).startsWith('a\n<p <p')).toBe(true);
    expect(htmlToText('<style>x</style >y<script src=a>z</script>!')).toBe('y!');
  }, 10_000);

  it('the kind of an attachment from its type, else its name', async () => {
    expect(textKindOf('text/html; charset=utf-8')).toBe('html');
    expect(textKindOf('application/pdf')).toBe('pdf');
    expect(textKindOf('application/octet-stream', 'card.PDF')).toBe('pdf');
    expect(textKindOf('text/csv')).toBe('text');
    expect(textKindOf('application/octet-stream', 'notes.txt')).toBe('text');
    expect(textKindOf('image/png', 'photo.png')).toBeNull();
    expect(await extractText('text', bytes(Buffer.from('Ünïcode ✓')))).toBe('Ünïcode ✓');
  });
});
