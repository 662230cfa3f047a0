'use strict';
// What kind of compiled executable a file is, from its bytes alone (nothing
// is run): its format (ELF, Mach-O, PE), a Bun single-file executable (Bun's
// standalone trailer and the built-in arguments `bun build --compile
// --compile-exec-argv` stored beside it), a Node single executable
// application (its SEA fuse flipped to 1). Used by the launcher (lib/run/)
// and doctor (lib/discover/executables.cjs). Every read is bounded.
//
// Bun (1.1 to 1.4 measured) appends its module graph to the executable,
// followed by an `Offsets` record and the trailer "\n---- Bun! ----\n"; on
// Linux the graph is the last thing before the section headers (tens of KB
// from the end), on macOS before the code signature (about size/128), on
// Windows in the last section. The trailer text also sits in every Bun
// binary's own code (the plain `bun` CLI's), far from its end: only a trailer
// in the file's tail whose Offsets record is consistent counts. Offsets
// (little-endian, 32 bytes, just before the trailer): byte_count u64,
// modules { offset u32, length u32 }, entry_point_id u32, compile_exec_argv
// { offset u32, length u32 }, flags u32; offsets are from the start of the
// graph, which is byte_count bytes before the record.

const fs = require('node:fs');

const BUN_TRAILER = Buffer.from('\n---- Bun! ----\n', 'latin1');
const BUN_OFFSETS_BYTES = 32;
/** How far from a file's end Bun's trailer is looked for: ELF and PE, Mach-O (whose code signature of a 1 GB executable is ~8 MB). */
const TAIL_BYTES = { ELF: 1024 * 1024, PE: 1024 * 1024, 'Mach-O': 16 * 1024 * 1024 };
/** The built-in arguments read at most. */
const MAX_EXEC_ARGV_BYTES = 64 * 1024;
/** Node's single-executable fuse (postject's --sentinel-fuse), flipped to 1 in a SEA. */
const SEA_FUSE = Buffer.from('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1', 'latin1');
const CHUNK_BYTES = 8 * 1024 * 1024;
const MAX_SEA_SCAN_BYTES = 1024 * 1024 * 1024;
/** postject's names: the ELF note, the Mach-O segment. */
const SEA_NOTE = Buffer.from('NODE_SEA_BLOB', 'latin1');
const SEA_SEGMENT = Buffer.from('NODE_SEA\0', 'latin1');
const MAX_LOAD_COMMAND_BYTES = 4 * 1024 * 1024;

/** The executable format a file's first bytes name ('ELF', 'Mach-O', 'PE'), or undefined. */
function executableFormatOf(head) {
  if (head.length >= 4 && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) return 'ELF';
  if (head.length >= 4) {
    const magic = head.readUInt32BE(0);
    if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe, 0xbebafeca].includes(magic)) return 'Mach-O';
  }
  if (head.length >= 2 && head[0] === 0x4d && head[1] === 0x5a) return 'PE';
  return undefined;
}

function readAt(fd, length, position) {
  const buffer = Buffer.allocUnsafe(length);
  const read = fs.readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

/**
 * Bun's standalone module graph in the file open at `fd` (`size` bytes):
 * { execArgv: the built-in arguments' text } or undefined when it is not a
 * Bun single-file executable.
 */
function bunStandaloneOf(fd, size, format) {
  const tailStart = Math.max(0, size - TAIL_BYTES[format]);
  const tail = readAt(fd, size - tailStart, tailStart);
  let at = tail.length;
  // The last trailer whose record is consistent (the one in Bun's own code never is).
  for (;;) {
    at = tail.lastIndexOf(BUN_TRAILER, at - 1);
    if (at < BUN_OFFSETS_BYTES) return undefined;
    const record = tail.subarray(at - BUN_OFFSETS_BYTES, at);
    const byteCount = record.readBigUInt64LE(0);
    const recordAt = tailStart + at - BUN_OFFSETS_BYTES;
    if (byteCount === 0n || byteCount > BigInt(recordAt)) continue;
    const count = Number(byteCount);
    const modulesOffset = record.readUInt32LE(8);
    const modulesLength = record.readUInt32LE(12);
    const argvOffset = record.readUInt32LE(20);
    const argvLength = record.readUInt32LE(24);
    if (modulesOffset + modulesLength > count || argvOffset + argvLength > count || argvLength > MAX_EXEC_ARGV_BYTES) continue;
    const base = recordAt - count;
    const execArgv = argvLength === 0 ? '' : readAt(fd, argvLength, base + argvOffset).toString('utf8');
    return { execArgv };
  }
}

/** Whether the file open at `fd` holds the flipped SEA fuse (scanned in chunks, bounded): the way for formats not parsed below. */
function holdsSeaFuse(fd, size) {
  const keep = SEA_FUSE.length - 1;
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES + keep);
  const limit = Math.min(size, MAX_SEA_SCAN_BYTES);
  let kept = 0;
  let position = 0;
  while (position < limit) {
    const read = fs.readSync(fd, buffer, kept, Math.min(CHUNK_BYTES, limit - position), position);
    if (read <= 0) break;
    position += read;
    const chunk = buffer.subarray(0, kept + read);
    if (chunk.indexOf(SEA_FUSE) >= 0) return true;
    kept = Math.min(keep, chunk.length);
    chunk.copy(buffer, 0, chunk.length - kept);
  }
  return false;
}

/**
 * Whether an ELF file carries the SEA blob: postject puts it in a PT_NOTE
 * segment as a note named NODE_SEA_BLOB, which Node finds through its
 * program headers. Read: the header, the program headers, each note's header
 * and name (a few small reads, whatever the file's size).
 */
function elfHasSeaNote(fd, size) {
  const header = readAt(fd, 64, 0);
  if (header.length < 52) return false;
  const is64 = header[4] === 2;
  const le = header[5] !== 2;
  const u16 = (b, o) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (b, o) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const word = (b, o) => (is64 ? Number(le ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o)) : u32(b, o));
  const phoff = word(header, is64 ? 0x20 : 0x1c);
  const phentsize = u16(header, is64 ? 0x36 : 0x2a);
  const phnum = Math.min(u16(header, is64 ? 0x38 : 0x2c), 512);
  const table = readAt(fd, phentsize * phnum, phoff);
  for (let i = 0; i + 1 <= phnum && (i + 1) * phentsize <= table.length; i++) {
    const ph = table.subarray(i * phentsize);
    if (u32(ph, 0) !== 4) continue; // PT_NOTE
    const offset = word(ph, is64 ? 8 : 4);
    const filesz = word(ph, is64 ? 32 : 16);
    let at = 0;
    for (let notes = 0; at + 12 <= filesz && notes < 64 && offset + at < size; notes++) {
      const note = readAt(fd, 12 + SEA_NOTE.length + 1, offset + at);
      if (note.length < 12) break;
      const namesz = u32(note, 0);
      const descsz = u32(note, 4);
      if (namesz === SEA_NOTE.length + 1 && note.subarray(12, 12 + SEA_NOTE.length).equals(SEA_NOTE)) return true;
      at += 12 + Math.ceil(namesz / 4) * 4 + Math.ceil(descsz / 4) * 4;
    }
  }
  return false;
}

/** Whether a (thin) Mach-O file has postject's NODE_SEA segment among its load commands. */
function machoHasSeaSegment(fd) {
  const header = readAt(fd, 32, 0);
  if (header.length < 28) return false;
  const magic = header.readUInt32BE(0);
  const le = magic === 0xcefaedfe || magic === 0xcffaedfe;
  const is64 = magic === 0xfeedfacf || magic === 0xcffaedfe;
  const sizeofcmds = le ? header.readUInt32LE(20) : header.readUInt32BE(20);
  const commands = readAt(fd, Math.min(sizeofcmds, MAX_LOAD_COMMAND_BYTES), is64 ? 32 : 28);
  return commands.indexOf(SEA_SEGMENT) >= 0;
}

/** Whether the file open at `fd` (format `format`) is a Node single executable application. */
function isNodeSea(fd, size, format) {
  if (format === 'ELF') return elfHasSeaNote(fd, size);
  if (format === 'Mach-O') {
    const magic = readAt(fd, 4, 0).readUInt32BE(0);
    if (magic !== 0xcafebabe && magic !== 0xbebafeca) return machoHasSeaSegment(fd);
  }
  return holdsSeaFuse(fd, size);
}

/**
 * What the file at `file` is: undefined when it is not a compiled executable
 * (a script, a missing file); else { format, bytes, kind } with kind
 * 'bun' (and `execArgv`, Bun's built-in arguments; `blocksBunOptions` when
 * they end with `--`, which makes Bun ignore BUN_OPTIONS), 'node-sea', or
 * 'native' (anything else). `{ sea: false }` skips the SEA scan (a full read
 * of a large file) for callers that do not need it.
 */
function compiledKindOf(file, { sea = true } = {}) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const format = executableFormatOf(readAt(fd, 4, 0));
    if (format === undefined) return undefined;
    const bytes = fs.fstatSync(fd).size;
    const bun = bunStandaloneOf(fd, bytes, format);
    if (bun !== undefined) {
      const args = bun.execArgv.trim().split(/\s+/);
      return { format, bytes, kind: 'bun', execArgv: bun.execArgv, blocksBunOptions: args[args.length - 1] === '--' };
    }
    if (sea && isNodeSea(fd, bytes, format)) return { format, bytes, kind: 'node-sea' };
    return { format, bytes, kind: 'native' };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

module.exports = { compiledKindOf, executableFormatOf };
