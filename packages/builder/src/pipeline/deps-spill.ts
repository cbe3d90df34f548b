import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArtifactDeps } from '@trelliscms/core';
import { shareDepStrings } from '../render/render-pool';
import type { WorkerArtifact } from '../render/worker-protocol';
import { RawDeps } from './raw-deps';

/** What a spilled page holds in place of its dependencies until {@link DepsSpill.restore}. */
const SPILLED: ArtifactDeps = Object.freeze({
  items: Object.freeze({}),
  templates: Object.freeze({}),
  queries: Object.freeze({}),
}) as ArtifactDeps;

/** Characters of lines gathered before they are written to the spill file. */
const WRITE_BATCH = 1024 * 1024;

/** Bytes read from the spill file at once when it is read back. */
const READ_BLOCK = 4 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Each rendered page's dependencies, kept out of memory from the moment its chunk comes back
 * from a render worker until the commit makes the manifest: they are most of what a build
 * keeps per page (about 1.2 KB of JSON each on the bench site), and the build thread would
 * otherwise hold every page's while the workers render (a 1,000,000-page site: gigabytes).
 * {@link put} writes a page's dependencies as one JSON line to a file in a temporary folder
 * and leaves an empty placeholder in the result; {@link restore} reads them back, in the
 * order written, into the same result objects (the workers are gone by then in a one-shot
 * build). The folder and file are deleted as soon as the file is open, so nothing is left in
 * the temporary folder even when the process is killed (the open descriptor keeps the file
 * until {@link close}); where an open file cannot be deleted (Windows), {@link close} deletes
 * them. The pages' bytes do not change: the dependencies read back are the same values, in
 * the same key order.
 */
export class DepsSpill {
  private offset = 0;
  private failed = false;
  /** the pages spilled, in the order their lines were written */
  private spilled: WorkerArtifact[] = [];
  /** lines not yet written, and their pages each followed by its dependencies (or their JSON text) */
  private pending: string[] = [];
  private pendingPages: Array<WorkerArtifact | ArtifactDeps | string> = [];
  private pendingChars = 0;
  private fd: number | null;

  /** the folder, while it still has to be deleted */
  private dir: string | null;

  private constructor(dir: string, fd: number) {
    this.fd = fd;
    this.dir = dir;
    try {
      rmSync(dir, { recursive: true, force: true });
      this.dir = null;
    } catch {
      // an open file that cannot be deleted: close() deletes it
    }
  }

  /**
   * A spill in a new temporary folder under `parent` (default the system's); null when none can
   * be made (the build keeps the dependencies in memory then).
   */
  static async open(parent = tmpdir()): Promise<DepsSpill | null> {
    // made, opened and deleted in one synchronous stretch: with an `await` between making the
    // folder and deleting it, a build thread busy planning kept the empty folder for seconds,
    // and a process killed then left it behind
    let dir: string | null = null;
    try {
      dir = mkdtempSync(join(parent, 'trellis-deps-'));
      return new DepsSpill(dir, openSync(join(dir, 'deps.jsonl'), 'w+'));
    } catch {
      if (dir) rmSync(dir, { recursive: true, force: true });
      return null;
    }
  }

  /** Pages spilled and not yet restored. */
  get size(): number {
    return this.spilled.length + this.pendingPages.length / 2;
  }

  /**
   * Takes the page's dependencies out of `result.deps` (a placeholder is left) to be written
   * to the file: lines are written in batches of about {@link WRITE_BATCH} bytes (one system
   * call per batch, not per page). Once a write failed (a full disk), the pages of that batch
   * get their dependencies back and this and later pages keep theirs in memory. `json`, when
   * given, is `JSON.stringify` of the page's dependencies, made by its render worker: written
   * as it is, and `result.deps` is not read (parsed back only if a write failed).
   */
  put(result: WorkerArtifact, json?: string): void {
    if (this.fd === null) throw new Error('the dependency spill is closed');
    if (this.failed) {
      if (json !== undefined) result.deps = JSON.parse(json) as ArtifactDeps;
      return;
    }
    const text = json ?? JSON.stringify(result.deps);
    const line = `${text}\n`;
    this.pending.push(line);
    this.pendingPages.push(result, json ?? result.deps);
    // an upper bound of the line's UTF-8 bytes, enough to bound the batch
    this.pendingChars += line.length;
    result.deps = SPILLED;
    if (this.pendingChars >= WRITE_BATCH) this.flush();
  }

  /** Writes the lines not yet written (see {@link put}). */
  flush(): void {
    if (this.fd === null) throw new Error('the dependency spill is closed');
    if (this.pending.length === 0) return;
    const batch = Buffer.from(this.pending.join(''), 'utf8');
    const pages = this.pendingPages;
    this.pending = [];
    this.pendingPages = [];
    this.pendingChars = 0;
    try {
      let written = 0;
      while (written < batch.length)
        written += writeSync(this.fd, batch, written, batch.length - written, this.offset + written);
    } catch {
      // what was written of this batch lies past `offset`: never read back
      this.failed = true;
      for (let i = 0; i < pages.length; i += 2) {
        const deps = pages[i + 1] as ArtifactDeps | string;
        (pages[i] as WorkerArtifact).deps =
          typeof deps === 'string' ? (JSON.parse(deps) as ArtifactDeps) : deps;
      }
      return;
    }
    this.offset += batch.length;
    for (let i = 0; i < pages.length; i += 2) this.spilled.push(pages[i] as WorkerArtifact);
  }

  /**
   * Gives every spilled page its dependencies back (the file is read in blocks: no string of
   * the whole file), each distinct hash held once as before (see `shareDepStrings`). With
   * `raw`, each page gets its line's text instead ({@link RawDeps}: nothing parsed, for a build
   * whose manifest is only written out).
   */
  restore(options: { raw?: boolean } = {}): void {
    const raw = options.raw === true;
    if (this.fd === null) throw new Error('the dependency spill is closed');
    this.flush();
    const pages = this.spilled;
    this.spilled = [];
    const strings = new Map<string, string>();
    let block = Buffer.allocUnsafe(READ_BLOCK);
    let filled = 0;
    let position = 0;
    let next = 0;
    while (position < this.offset) {
      if (filled === block.length) {
        // a line longer than the block: a larger block
        const larger = Buffer.allocUnsafe(block.length * 2);
        block.copy(larger, 0, 0, filled);
        block = larger;
      }
      const read = readSync(
        this.fd,
        block,
        filled,
        Math.min(block.length - filled, this.offset - position),
        position,
      );
      if (read === 0) break;
      position += read;
      filled += read;
      let start = 0;
      for (
        let end = block.indexOf(NEWLINE, start);
        end !== -1 && end < filled;
        end = block.indexOf(NEWLINE, start)
      ) {
        const page = pages[next++];
        if (!page) throw new Error('the dependency spill holds more pages than were spilled');
        const text = block.toString('utf8', start, end);
        if (raw) page.deps = new RawDeps(text);
        else {
          const deps = JSON.parse(text) as ArtifactDeps;
          shareDepStrings(deps, strings);
          page.deps = deps;
        }
        start = end + 1;
      }
      block.copy(block, 0, start, filled);
      filled -= start;
    }
    if (next !== pages.length || filled !== 0)
      throw new Error(`the dependency spill gave back ${next} of ${pages.length} pages`);
    this.offset = 0;
  }

  /** Closes the file (and deletes it and its folder, if that was not done at once). */
  async close(): Promise<void> {
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
    this.spilled = [];
    this.pending = [];
    this.pendingPages = [];
    this.pendingChars = 0;
    if (this.dir !== null) await rm(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}
