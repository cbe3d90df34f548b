// Compares two built sites page by page: the same URLs (every `.html` file) and the same page
// text (the HTML without scripts and tags, entities decoded, whitespace collapsed). Trellis's
// own extras (sitemap, search index, `.trellis/`) are no pages and are not compared.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

function htmlFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.html')) files.push(relative(root, path));
    }
  };
  walk(root);
  return files.sort();
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text of a page, as a reader sees it. */
export function pageText(html) {
  return html
    .replace(/<script\b[\s\S]*?<\/script>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name) => {
      if (name[0] === '#')
        return String.fromCodePoint(
          name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1)),
        );
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** `{pages, sameUrls, sameText, firstDifference}` of two output folders. */
export function compareSites(a, b) {
  const filesA = htmlFiles(a);
  const filesB = htmlFiles(b);
  const setB = new Set(filesB);
  const onlyA = filesA.filter((file) => !setB.has(file));
  const setA = new Set(filesA);
  const onlyB = filesB.filter((file) => !setA.has(file));
  let differing = 0;
  let firstDifference = null;
  for (const file of filesA) {
    if (!setB.has(file)) continue;
    const textA = pageText(readFileSync(join(a, file), 'utf8'));
    const textB = pageText(readFileSync(join(b, file), 'utf8'));
    if (textA === textB) continue;
    differing++;
    if (!firstDifference) {
      let at = 0;
      while (textA[at] === textB[at]) at++;
      firstDifference = {
        file,
        a: textA.slice(Math.max(0, at - 60), at + 80),
        b: textB.slice(Math.max(0, at - 60), at + 80),
      };
    }
  }
  return {
    pages: filesA.length,
    otherPages: filesB.length,
    sameUrls: onlyA.length === 0 && onlyB.length === 0,
    onlyA: onlyA.slice(0, 5),
    onlyB: onlyB.slice(0, 5),
    sameText: differing === 0,
    differing,
    firstDifference,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [a, b] = process.argv.slice(2);
  const result = compareSites(a, b);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.exitCode = result.sameUrls && result.sameText ? 0 : 1;
}
