import { open, readFile } from 'node:fs/promises';
import { TrellisError } from '@trelliscms/core/build';
import { SharedText, shareLongFields } from './shared-store';
import type { Snapshot } from './types';

/** True for a value shaped like a site snapshot (`format: 'trellis-snapshot'`). */
export function isSnapshot(value: unknown): value is Snapshot {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { format?: unknown }).format === 'trellis-snapshot'
  );
}

/**
 * Checks the members a build relies on and fills optional arrays; throws `invalid_snapshot`
 * (400) naming the first problem.
 */
export function assertSnapshot(value: unknown): Snapshot {
  const fail = (detail: string) => TrellisError.of('invalid_snapshot', { detail });
  if (!isSnapshot(value)) throw fail('`format` must be "trellis-snapshot"');
  if (value.version !== 1) throw fail(`version ${String(value.version)} is not supported (expected 1)`);
  if (typeof value.site !== 'object' || value.site === null) throw fail('`site` must be an object');
  for (const key of ['types', 'items', 'templates'] as const) {
    if (!Array.isArray(value[key])) throw fail(`\`${key}\` must be an array`);
  }
  value.items.forEach((item, index) => {
    if (
      typeof item?.id !== 'string' ||
      typeof item.type !== 'string' ||
      typeof item.fields !== 'object' ||
      item.fields === null
    ) {
      throw fail(`items[${index}] needs string \`id\` and \`type\` and an object \`fields\``);
    }
  });
  value.templates.forEach((template, index) => {
    if (typeof template?.name !== 'string' || typeof template.content !== 'string') {
      throw fail(`templates[${index}] needs string \`name\` and \`content\``);
    }
  });
  if (value.queries !== undefined) {
    if (!Array.isArray(value.queries)) throw fail('`queries` must be an array');
    value.queries.forEach((saved, index) => {
      if (typeof saved?.name !== 'string' || typeof saved.query !== 'object' || saved.query === null) {
        throw fail(`queries[${index}] needs a string \`name\` and an object \`query\``);
      }
    });
  }
  if (value.locales !== undefined) {
    if (!Array.isArray(value.locales)) throw fail('`locales` must be an array');
    value.locales.forEach((locale, index) => {
      if (typeof locale?.code !== 'string') throw fail(`locales[${index}] needs a string \`code\``);
    });
  }
  if (value.translations !== undefined && !Array.isArray(value.translations)) {
    throw fail('`translations` must be an array');
  }
  return { ...value, edges: Array.isArray(value.edges) ? value.edges : [] };
}

/** Files up to this size are read whole; larger ones are streamed (see {@link readSnapshotFile}). */
const READ_WHOLE_BYTES = 8 * 1024 * 1024;

/**
 * Reads and checks a snapshot file. A large file is streamed: the members of the top-level
 * object are parsed one by one, the elements of its arrays one by one (no string of the whole
 * file, which V8 could not even hold past 512 MB), and the items' long text values (bodies)
 * are kept in shared memory, read on demand (`shared-store.ts`): the render workers share them
 * instead of receiving a copy each. The result reads exactly as `JSON.parse` of the file would.
 */
export async function readSnapshotFile(path: string): Promise<Snapshot> {
  let parsed: unknown;
  try {
    const handle = await open(path, 'r');
    let size: number;
    try {
      size = (await handle.stat()).size;
    } finally {
      await handle.close();
    }
    parsed = size <= READ_WHOLE_BYTES ? JSON.parse(await readFile(path, 'utf8')) : await streamSnapshot(path);
  } catch (error) {
    throw TrellisError.of('invalid_snapshot', { detail: `${path}: ${(error as Error).message}` });
  }
  return shareEdgeIds(assertSnapshot(parsed));
}

/**
 * Makes the edges' `from` and `to` the very strings of the items' ids (and one string per edge
 * label): parsed, each edge holds copies of its own, which on a large site weigh more than the
 * edges themselves. The values are the same; only the memory is.
 */
function shareEdgeIds(snapshot: Snapshot): Snapshot {
  if (snapshot.edges.length === 0) return snapshot;
  const strings = new Map<string, string>();
  for (const item of snapshot.items) if (!strings.has(item.id)) strings.set(item.id, item.id);
  const shared = (value: string): string => {
    const known = strings.get(value);
    if (known !== undefined) return known;
    strings.set(value, value);
    return value;
  };
  for (const edge of snapshot.edges) {
    if (typeof edge !== 'object' || edge === null) continue;
    if (typeof edge.from === 'string') edge.from = shared(edge.from);
    if (typeof edge.edge === 'string') edge.edge = shared(edge.edge);
    if (typeof edge.to === 'string') edge.to = shared(edge.to);
  }
  return snapshot;
}

const CHUNK_BYTES = 4 * 1024 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * Parses a JSON file whose top level is an object, member by member and array element by array
 * element (each parsed with `JSON.parse`), `chunkBytes` at a time. Items (`items[]` elements) get their long strings
 * moved to shared memory as they are read.
 */
export async function streamSnapshot(path: string, chunkBytes = CHUNK_BYTES): Promise<unknown> {
  const texts = new SharedText();
  const result: Record<string, unknown> = {};
  // where the scanner is: 0 before `{`, 1 before a key (or `}`), 2 in a key, 3 before `:`,
  // 4 before a value, 5 in an array before an element (or `]`), 6 in a value, 7 after the end
  let state = 0;
  let parts: Buffer[] = [];
  // the value being read: nesting depth, in a string, after a backslash, kind (`{`/`[` , `"` , other)
  let depth = 0;
  let inString = false;
  let escaped = false;
  let kind = 0;
  let key = '';
  let inArray = false;
  let array: unknown[] = [];
  const take = (value: unknown) => {
    if (inArray) {
      array.push(key === 'items' ? shareLongFields(value as never, texts) : value);
    } else if (key === '__proto__') {
      Object.defineProperty(result, key, { value, writable: true, enumerable: true, configurable: true });
    } else result[key] = value;
  };
  // the text of the value (or key) ending at `end` of `chunk`, begun at `start` of it or in earlier
  // chunks (`parts`): decoded in place when it lies in this chunk, without a copy
  const text = (chunk: Buffer, start: number, end: number) => {
    if (parts.length === 0) return chunk.toString('utf8', start, end);
    parts.push(chunk.subarray(start, end));
    const joined = Buffer.concat(parts);
    parts = [];
    return joined.toString('utf8');
  };
  const unexpected = (byte: number) =>
    new Error(`unexpected ${JSON.stringify(String.fromCharCode(byte))} in JSON`);
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      // start of the value (or key) being read in this chunk, -1 when none
      let start = state === 2 || state === 6 ? 0 : -1;
      // the next quote and backslash at or after the scan (found with indexOf: strings are skipped fast)
      let nextQuote = -1;
      let nextBackslash = -1;
      for (let i = 0; i < bytesRead; i++) {
        if ((state === 6 || state === 2) && inString) {
          if (escaped) {
            escaped = false;
            continue;
          }
          if (nextQuote < i) {
            nextQuote = chunk.indexOf(QUOTE, i);
            if (nextQuote === -1) nextQuote = bytesRead;
          }
          if (nextBackslash < i) {
            nextBackslash = chunk.indexOf(BACKSLASH, i);
            if (nextBackslash === -1) nextBackslash = bytesRead;
          }
          i = Math.min(nextQuote, nextBackslash);
          if (i >= bytesRead) break;
        }
        const b = chunk[i]!;
        if (state === 6 || state === 2) {
          if (inString) {
            if (b === BACKSLASH) escaped = true;
            else {
              inString = false;
              if (kind === QUOTE) {
                const value = JSON.parse(text(chunk, start, i + 1));
                start = -1;
                if (state === 2) {
                  key = value as string;
                  state = 3;
                } else {
                  take(value);
                  state = inArray ? 5 : 1;
                }
              }
            }
            continue;
          }
          if (kind === 0x7b) {
            if (b === QUOTE) inString = true;
            else if (b === 0x7b || b === 0x5b) depth++;
            else if (b === 0x7d || b === 0x5d) {
              depth--;
              if (depth === 0) {
                const value = JSON.parse(text(chunk, start, i + 1));
                start = -1;
                take(value);
                state = inArray ? 5 : 1;
              }
            }
            continue;
          }
          // a number, true, false or null: ends before a separator
          if (b === 0x2c || b === 0x7d || b === 0x5d || isSpace(b)) {
            const value = JSON.parse(text(chunk, start, i));
            start = -1;
            take(value);
            state = inArray ? 5 : 1;
            i--;
          }
          continue;
        }
        if (isSpace(b)) continue;
        if (state === 0) {
          if (b !== 0x7b) throw unexpected(b);
          state = 1;
        } else if (state === 1) {
          if (b === 0x2c) continue;
          if (b === 0x7d) state = 7;
          else if (b === QUOTE) {
            state = 2;
            kind = QUOTE;
            inString = true;
            escaped = false;
            start = i;
          } else throw unexpected(b);
        } else if (state === 3) {
          if (b !== 0x3a) throw unexpected(b);
          state = 4;
        } else if (state === 4 && b === 0x5b) {
          if (key === '__proto__') throw new Error('`__proto__` is not a snapshot member');
          inArray = true;
          array = [];
          result[key] = array;
          state = 5;
        } else if (state === 5 && b === 0x2c) {
        } else if (state === 5 && b === 0x5d) {
          inArray = false;
          state = 1;
        } else if ((state === 4 || state === 5) && b !== 0x7d && b !== 0x5d && b !== 0x3a && b !== 0x2c) {
          state = 6;
          start = i;
          inString = b === QUOTE;
          escaped = false;
          kind = b === QUOTE ? QUOTE : b === 0x7b || b === 0x5b ? 0x7b : 0;
          depth = kind === 0x7b ? 1 : 0;
        } else throw unexpected(b);
      }
      if (start !== -1) parts.push(Buffer.from(chunk.subarray(start, bytesRead)));
    }
  } finally {
    await handle.close();
  }
  if (state === 6 && kind === 0 && !inArray) {
    // a number at the very end cannot be (the object is not closed)
    throw new Error('unexpected end of JSON input');
  }
  if (state !== 7) throw new Error('unexpected end of JSON input');
  return result;
}
