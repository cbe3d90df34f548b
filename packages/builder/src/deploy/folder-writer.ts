import { mkdir as mkdirCallback, writeFile as writeFileCallback } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** `fs.mkdir` of one folder whose parent exists; resolves `false` when something is there already. */
function mkdirOne(dir: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    mkdirCallback(dir, (error) => {
      if (!error) resolve(true);
      else if (error.code === 'EEXIST') resolve(false);
      else reject(error);
    });
  });
}

/**
 * `fs.writeFile` with a callback: one open, write and close on libuv's threads, without the
 * `FileHandle` and promise turns of `fs/promises`' `writeFile` (a build writes a file per page).
 */
function writeOne(file: string, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    writeFileCallback(file, data, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * The `writeFile` of a write session whose files go under a local folder: each parent folder
 * is made once (the first write into it: one `mkdir` when its own parent was made by this
 * writer, else `mkdir -p`), then the file is written.
 */
export function folderWriter(root: string): (path: string, data: string | Uint8Array) => Promise<void> {
  const made = new Set<string>();
  return async (path, data) => {
    const file = join(root, path);
    const dir = dirname(file);
    if (!made.has(dir)) {
      // most pages are the only file of their folder, whose parent holds many: one system call
      // (something already there — a folder of an earlier build, or not a folder — takes `mkdir -p`)
      if (!made.has(dirname(dir)) || !(await mkdirOne(dir))) await mkdir(dir, { recursive: true });
      made.add(dir);
    }
    await writeOne(file, data);
  };
}
