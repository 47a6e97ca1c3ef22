// Reads the binary Cap'n Proto config that Miniflare writes to workerd's standard input, sets its
// `v8Flags` field (Config pointer slot 2, which Miniflare never sets) to the flags named in
// WORKERD_V8_FLAGS, and writes the message to standard output. The flag list goes in a segment of
// its own, reached by a far pointer, so no byte of Miniflare's segments moves. A message of a
// shape this does not expect passes through unchanged, with a warning.
import { readSync, writeSync } from 'node:fs';

/** @param {Buffer} input @param {string[]} flags @returns {Buffer} */
export function withV8Flags(input, flags) {
  if (flags.length === 0) return input;
  const segmentCount = input.readUInt32LE(0) + 1;
  const headerBytes = (n) => Math.ceil((4 + 4 * n) / 8) * 8;
  const sizes = Array.from({ length: segmentCount }, (_, i) => input.readUInt32LE(4 + 4 * i));
  const segmentsStart = headerBytes(segmentCount);
  if (segmentsStart + sizes.reduce((a, b) => a + b, 0) * 8 !== input.length)
    return unchanged(input, 'its length does not match its segment table');

  // The root pointer: a struct pointer at word 0 of segment 0.
  const lower = input.readUInt32LE(segmentsStart);
  if ((lower & 3) !== 0) return unchanged(input, 'its root is not a struct in the first segment');
  const structWord = 1 + (lower >> 2);
  const dataWords = input.readUInt16LE(segmentsStart + 4);
  const pointerWords = input.readUInt16LE(segmentsStart + 6);
  if (pointerWords < 3 || structWord + dataWords + pointerWords > sizes[0]) return unchanged(input, 'its root struct has no v8Flags slot');
  const slot = segmentsStart + (structWord + dataWords + 2) * 8;
  if (input.readBigUInt64LE(slot) !== 0n) return unchanged(input, 'v8Flags is already set');

  // The new segment: a landing pad (a list pointer to the next word), one text pointer per flag,
  // then each flag's bytes with a terminating NUL, padded to a word.
  const texts = flags.map((flag) => Buffer.from(`${flag}\0`, 'utf8'));
  const textWords = texts.map((t) => Math.ceil(t.length / 8));
  const words = 1 + flags.length + textWords.reduce((a, b) => a + b, 0);
  const segment = Buffer.alloc(words * 8);
  writeListPointer(segment, 0, 0, 6, flags.length);
  let dataWord = 1 + flags.length;
  texts.forEach((text, i) => {
    const pointerWord = 1 + i;
    writeListPointer(segment, pointerWord, dataWord - pointerWord - 1, 2, text.length);
    text.copy(segment, dataWord * 8);
    dataWord += textWords[i];
  });

  const header = Buffer.alloc(headerBytes(segmentCount + 1));
  header.writeUInt32LE(segmentCount, 0);
  [...sizes, words].forEach((size, i) => header.writeUInt32LE(size, 4 + 4 * i));
  const body = Buffer.from(input.subarray(segmentsStart));
  // A far pointer (kind 2) to word 0 of the new segment.
  body.writeUInt32LE(2, slot - segmentsStart);
  body.writeUInt32LE(segmentCount, slot - segmentsStart + 4);
  return Buffer.concat([header, body, segment]);
}

/** A list pointer at `word` of `buffer`: offset in words from the next word, element size code, count. */
function writeListPointer(buffer, word, offset, elementSize, count) {
  buffer.writeInt32LE((offset << 2) | 1, word * 8);
  buffer.writeUInt32LE(((count << 3) | elementSize) >>> 0, word * 8 + 4);
}

function unchanged(input, why) {
  process.stderr.write(`workerd-v8: config left unchanged: ${why}\n`);
  return input;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flags = (process.env.WORKERD_V8_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const output = withV8Flags(readAll(0), flags);
  for (let written = 0; written < output.length; ) written += writeSync(1, output, written);
}

/** Everything on descriptor `fd` up to its end, read in blocking chunks (a pipe may deliver it in parts). */
function readAll(fd) {
  const chunks = [];
  for (;;) {
    const chunk = Buffer.alloc(1 << 20);
    let n;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      if (error.code === 'EAGAIN') continue;
      if (error.code === 'EOF') break;
      throw error;
    }
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
  }
  return Buffer.concat(chunks);
}
