import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file of a built site (relative path → text), without the `.trellis` bookkeeping folder. */
export function siteFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name === '.trellis') continue;
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  walk(root);
  return out;
}
