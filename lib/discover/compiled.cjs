'use strict';
// What kind of compiled executable a file is, from its bytes alone (nothing
// is run): its format (ELF, Mach-O, PE), a Bun single-file executable (Bun's
// standalone trailer and the built-in arguments `bun build --compile
// --compile-exec-argv` stored beside it), a Node single executable
// application (its SEA fuse flipped to 1). Used by `run` (lib/run/)
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
// { offset u32, length u32 }, flags u32 (older lines: the first three
// alone, 24 bytes); offsets are from the start of the graph, which is
// byte_count bytes before the record. The module table holds one record per
// module: name, contents, sourcemap, bytecode (each { offset u32, length
// u32 }), on later lines two more pointers, then encoding, loader, format
// and side (u8 each); its size is found by reading the table
// (lib/discover/bun-graph.cjs reads the modules).

const fs = require('node:fs');
const os = require('node:os');
const { isBunEmbeddedPath } = require('../native/platform.cjs');

const BUN_TRAILER = Buffer.from('\n---- Bun! ----\n', 'latin1');
/** How far from a file's end Bun's trailer is looked for: ELF and PE, Mach-O (whose code signature comes after it). Sizes: docs/performance.md. */
const TAIL_BYTES = { ELF: 1024 * 1024, PE: 1024 * 1024, 'Mach-O': 16 * 1024 * 1024 };
/** The tail looked in first: where a Linux executable's trailer is, so `run` reads no more. */
const FIRST_TAIL_BYTES = 64 * 1024;
/** The built-in arguments read at most. */
const MAX_EXEC_ARGV_BYTES = 64 * 1024;
/** Node's single-executable fuse (postject's --sentinel-fuse), flipped to 1 in a SEA. */
// Written in two parts: a file that holds this code (a SEA that bundles it)
// must not hold the sentinel postject looks for, once only, in the binary.
const SEA_FUSE = Buffer.from(['NODE_SEA_FUSE', 'fce680ab2cc467b6e072b8b5df1996b2:1'].join('_'), 'latin1');
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

/** The Offsets record's sizes, newest first: with the built-in arguments and flags (32 bytes), without them (24, older lines). */
const OFFSETS_SIZES = [32, 24];
/** A module record's sizes looked for: 4 string pointers and 4 one-byte fields (36), plus 2 pointers (52, later lines), and between. */
const MIN_MODULE_BYTES = 36;
const MAX_MODULE_BYTES = 96;
/** The module table read at most: far more than the largest host's (docs/performance.md). */
const MAX_TABLE_BYTES = 16 * 1024 * 1024;
/**
 * The size of one module record in `table` (the graph's module table, of
 * `byteCount` bytes of graph), or undefined: the smallest size for which
 * every record's name and contents point inside the graph, every name is a
 * non-empty one, and every record's last four bytes (encoding, loader,
 * format, side) hold values Bun writes.
 */
function moduleRecordBytes(table, byteCount) {
  if (table.length === 0 || table.length % 4 !== 0) return undefined;
  const words = wordsOf(table);
  const within = (offset, length) => offset + length <= byteCount;
  for (let size = MIN_MODULE_BYTES; size <= MAX_MODULE_BYTES; size += 4) {
    if (table.length % size !== 0) continue;
    let ok = true;
    for (let at = 0, word = 0; ok && at < table.length; at += size, word += size / 4) {
      const nameLength = words[word + 1];
      ok = nameLength > 0 && nameLength < 4096 && within(words[word], nameLength) &&
        within(words[word + 2], words[word + 3]) && table[at + size - 4] <= 2 && table[at + size - 2] <= 2 && table[at + size - 1] <= 1;
    }
    if (ok) return size;
  }
  return undefined;
}

/**
 * `bytes` (a multiple of 4 long) as little-endian u32 words: a typed array
 * over them where the machine is little-endian (indexing it is what keeps
 * reading a table of thousands of records cheap on `run`'s start).
 */
function wordsOf(bytes) {
  const count = bytes.length / 4;
  if (os.endianness() === 'LE') {
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
    return new Uint32Array(aligned.buffer, aligned.byteOffset, count);
  }
  return Uint32Array.from({ length: count }, (_, i) => bytes.readUInt32LE(i * 4));
}

/**
 * The graph of an Offsets record `record` (`size` bytes) ending at file
 * offset `end` (where the trailer starts), or undefined when it is not
 * consistent: its byte count inside the file, its module table and
 * built-in arguments inside the graph, the first module named as Bun names
 * an embedded one.
 */
function graphOf(fd, record, end, size, tail, tailStart) {
  const byteCount = record.readBigUInt64LE(0);
  if (byteCount === 0n || byteCount > BigInt(end - size)) return undefined;
  const count = Number(byteCount);
  const base = end - size - count;
  const modules = { offset: record.readUInt32LE(8), length: record.readUInt32LE(12) };
  const entryPointId = record.readUInt32LE(16);
  const argv = size >= 28 ? { offset: record.readUInt32LE(20), length: record.readUInt32LE(24) } : { offset: 0, length: 0 };
  if (modules.offset + modules.length > count || argv.offset + argv.length > count || argv.length > MAX_EXEC_ARGV_BYTES) return undefined;
  if (modules.length > MAX_TABLE_BYTES) return undefined;
  // The table sits just before the record: in the tail already read, but for a graph of very many modules.
  const tableAt = base + modules.offset - tailStart;
  const table = tableAt >= 0 ? tail.subarray(tableAt, tableAt + modules.length) : readAt(fd, modules.length, base + modules.offset);
  const moduleBytes = moduleRecordBytes(table, count);
  if (moduleBytes === undefined || entryPointId >= table.length / moduleBytes) return undefined;
  const firstName = readAt(fd, Math.min(table.readUInt32LE(4), 16), base + table.readUInt32LE(0)).toString('latin1');
  if (!isBunEmbeddedPath(firstName)) return undefined;
  const execArgv = argv.length === 0 ? '' : readAt(fd, argv.length, base + argv.offset).toString('utf8');
  return {
    execArgv,
    // What the graph's layout says of the Bun that wrote it (lib/rule/ways-in.cjs's BUN_LAYOUTS reads it).
    layout: { offsetsBytes: size, moduleBytes, flags: size >= 32 ? record.readUInt32LE(28) : undefined },
    base,
    byteCount: count,
    entryPointId,
    table,
  };
}

/**
 * Bun's standalone module graph in the file open at `fd` (`size` bytes):
 * { execArgv: the built-in arguments' text, layout, base (the graph's file
 * offset), byteCount, entryPointId, table (the module records, as read) },
 * or undefined when it is not a Bun single-file executable.
 */
function bunStandaloneOf(fd, size, format) {
  const most = TAIL_BYTES[format];
  if (most <= FIRST_TAIL_BYTES || size <= FIRST_TAIL_BYTES) return graphInTail(fd, size, most);
  // The same last consistent trailer: one within the first tail is the last of the whole tail too.
  return graphInTail(fd, size, FIRST_TAIL_BYTES) ?? graphInTail(fd, size, most);
}

/** bunStandaloneOf(), looking in the file's last `tailBytes` bytes. */
function graphInTail(fd, size, tailBytes) {
  const tailStart = Math.max(0, size - tailBytes);
  const tail = readAt(fd, size - tailStart, tailStart);
  let at = tail.length;
  // The last trailer whose record is consistent (the one in Bun's own code never is).
  for (;;) {
    at = tail.lastIndexOf(BUN_TRAILER, at - 1);
    if (at < OFFSETS_SIZES[OFFSETS_SIZES.length - 1]) return undefined;
    for (const recordSize of OFFSETS_SIZES) {
      if (at < recordSize) continue;
      const graph = graphOf(fd, tail.subarray(at - recordSize, at), tailStart + at, recordSize, tail, tailStart);
      if (graph !== undefined) return graph;
    }
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

/** The executable open at `fd`: { format, bytes, graph (bunStandaloneOf()'s, or undefined) }, or undefined when it is none. */
function executableAt(fd) {
  const format = executableFormatOf(readAt(fd, 4, 0));
  if (format === undefined) return undefined;
  const bytes = fs.fstatSync(fd).size;
  return { format, bytes, graph: bunStandaloneOf(fd, bytes, format) };
}

/** Whether a Bun-compiled executable's built-in arguments end with `--`, after which its Bun reads no BUN_OPTIONS. */
function blocksBunOptions(execArgv) {
  const args = execArgv.trim().split(/\s+/);
  return args[args.length - 1] === '--';
}

/**
 * What the file at `file` is: undefined when it is not a compiled executable
 * (a script, a missing file); else { format, bytes, kind } with kind
 * 'bun' (and `execArgv`, Bun's built-in arguments; `blocksBunOptions` when
 * they end with `--`, which makes Bun ignore BUN_OPTIONS; `layout`, what the
 * graph's layout says of the Bun that wrote it: { offsetsBytes, moduleBytes,
 * flags }), 'node-sea', or
 * 'native' (anything else). `{ sea: false }` skips the SEA scan (a full read
 * of a large file) for callers that do not need it.
 */
function compiledKindOf(file, { sea = true } = {}) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const opened = executableAt(fd);
    if (opened === undefined) return undefined;
    const { format, bytes, graph: bun } = opened;
    if (bun !== undefined) return { format, bytes, kind: 'bun', execArgv: bun.execArgv, blocksBunOptions: blocksBunOptions(bun.execArgv), layout: bun.layout };
    if (sea && isNodeSea(fd, bytes, format)) return { format, bytes, kind: 'node-sea' };
    return { format, bytes, kind: 'native' };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

module.exports = { compiledKindOf, blocksBunOptions, executableFormatOf, executableAt, readAt };
