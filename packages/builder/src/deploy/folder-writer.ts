import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * The `writeFile` of a write session whose files go under a local folder: each parent folder
 * is made once (the first write into it), then the file is written.
 */
export function folderWriter(root: string): (path: string, data: string | Uint8Array) => Promise<void> {
  const made = new Set<string>();
  return async (path, data) => {
    const file = join(root, path);
    const dir = dirname(file);
    if (!made.has(dir)) {
      await mkdir(dir, { recursive: true });
      made.add(dir);
    }
    await writeFile(file, data);
  };
}
