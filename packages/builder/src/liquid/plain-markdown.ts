// The `markdown` filter's output for the plainest markdown, without marked: prose paragraphs,
// ATX headings and tight bullet lists of one-line items, whose text is words and common
// punctuation with `**strong**` runs and `[text](http(s)://url)` links. For such a source the
// result is what marked (GFM) gives and the sanitizer keeps (see `plain-html.ts`: the sanitizer
// decodes `&quot;` and `&#39;` in text, so quotes come out as they are written). Anything else —
// another construct, a character with a meaning in some context (`_ * ~ \` \\ < > & @ [ ] # |`
// outside the forms above), a line that could start a list, code or a setext heading, a text
// that GFM could autolink (`://`, `www.`), non-ASCII — gives null and the caller runs marked.
// `plain-markdown.test.ts` compares both on generated markdown.

// Characters taken as plain text (ASCII): letters, digits, space and the punctuation below.
const PLAIN = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) PLAIN[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) PLAIN[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) PLAIN[c] = 1;
for (const c of ' .,;:?!()"\'/%$+=-') PLAIN[c.charCodeAt(0)] = 1;

/**
 * Plain characters that need no further look inside a line: {@link PLAIN} but `:` (`://`) and
 * `w`/`W` (`www.`); the scan skips runs of them in a tight loop.
 */
const QUIET = PLAIN.slice();
for (const c of ':wW') QUIET[c.charCodeAt(0)] = 0;

const isAlnum = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** Words: letters and digits, single inner spaces allowed, starting and ending with a letter or digit. */
function isWords(text: string, from: number, to: number): boolean {
  if (to <= from || !isAlnum(text.charCodeAt(from)) || !isAlnum(text.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = text.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x20) return false;
  }
  return true;
}

/** After a `**…**` or link: the end of the text, a space or `. , ; :`. */
function endsToken(text: string, at: number): boolean {
  if (at === text.length) return true;
  const c = text.charCodeAt(at);
  return c === 0x20 || c === 0x2e || c === 0x2c || c === 0x3b || c === 0x3a;
}

/** A link destination: `http://` or `https://`, then letters, digits and `. _ - /`. */
function isPlainUrl(url: string): boolean {
  const start = url.startsWith('https://') ? 8 : url.startsWith('http://') ? 7 : -1;
  if (start < 0 || url.length === start) return false;
  for (let i = start; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x2e && c !== 0x5f && c !== 0x2d && c !== 0x2f) return false;
  }
  return true;
}

/** The HTML of one line of inline text, or null when it is not plain enough. */
/** Whether `www.` (in any case) starts at `i`, known to hold `w` or `W` (no slice of the text for it). */
function isWww(text: string, i: number): boolean {
  return (
    (text.charCodeAt(i + 1) | 0x20) === 0x77 &&
    (text.charCodeAt(i + 2) | 0x20) === 0x77 &&
    text.charCodeAt(i + 3) === 0x2e
  );
}

function inline(text: string): string | null {
  const n = text.length;
  if (n === 0 || text.charCodeAt(0) === 0x20 || text.charCodeAt(n - 1) === 0x20) return null;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    // a run of characters with nothing to look at
    while (c < 128 && QUIET[c] === 1) {
      if (++i === n) break;
      c = text.charCodeAt(i);
    }
    if (i === n) break;
    if (c === 0x2a) {
      // `**words**`, after the start or a space, before the end, a space or `. , ; :`
      if (text.charCodeAt(i + 1) !== 0x2a || (i > 0 && text.charCodeAt(i - 1) !== 0x20)) return null;
      const end = text.indexOf('**', i + 2);
      if (end < 0 || !isWords(text, i + 2, end) || !endsToken(text, end + 2)) return null;
      out += `${text.slice(copied, i)}<strong>${text.slice(i + 2, end)}</strong>`;
      i = end + 2;
      copied = i;
      continue;
    }
    if (c === 0x5b) {
      // `[words](http(s)://url)`, after the start or a space (not `![`), before the end, a space or `. , ; :`
      if (i > 0 && text.charCodeAt(i - 1) !== 0x20) return null;
      const close = text.indexOf('](', i + 1);
      if (close < 0 || !isWords(text, i + 1, close)) return null;
      const end = text.indexOf(')', close + 2);
      if (end < 0 || !endsToken(text, end + 1)) return null;
      const url = text.slice(close + 2, end);
      if (!isPlainUrl(url)) return null;
      out += `${text.slice(copied, i)}<a href="${url}">${text.slice(i + 1, close)}</a>`;
      i = end + 1;
      copied = i;
      continue;
    }
    if (c >= 128 || PLAIN[c] !== 1) return null;
    // what GFM would autolink: `://` and `www.` (in any case)
    if (c === 0x3a && text.charCodeAt(i + 1) === 0x2f && text.charCodeAt(i + 2) === 0x2f) return null;
    if ((c | 0x20) === 0x77 && isWww(text, i)) return null;
    i++;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * `markdownToHtml(source)` for plain markdown (see the top of this file), computed without
 * marked; null when `source` is anything else.
 */
export function plainMarkdown(source: string): string | null {
  let text = source;
  if (text.charCodeAt(text.length - 1) === 0x0a) text = text.slice(0, -1);
  if (text.length === 0) return null;
  let out = '';
  let previousList = false;
  let from = 0;
  while (from <= text.length) {
    let to = text.indexOf('\n\n', from);
    if (to < 0) to = text.length;
    // an empty block: a blank line more, or a newline at the start or end
    if (to === from) return null;
    const block = text.slice(from, to);
    const first = block.charCodeAt(0);
    if (first === 0x23) {
      // `#…` heading: one to six `#`, one space, inline text on one line
      let level = 1;
      while (block.charCodeAt(level) === 0x23) level++;
      if (level > 6 || block.charCodeAt(level) !== 0x20 || block.includes('\n')) return null;
      const html = inline(block.slice(level + 1));
      if (html === null) return null;
      out += `<h${level}>${html}</h${level}>\n`;
      previousList = false;
    } else if (first === 0x2d) {
      // a tight list: `- item` lines, each item starting with a letter; two lists a blank line
      // apart would be one loose list
      if (previousList) return null;
      out += '<ul>\n';
      let line = 0;
      while (line < block.length) {
        let end = block.indexOf('\n', line);
        if (end < 0) end = block.length;
        if (block.charCodeAt(line) !== 0x2d || block.charCodeAt(line + 1) !== 0x20) return null;
        if (!isLetter(block.charCodeAt(line + 2))) return null;
        const html = inline(block.slice(line + 2, end));
        if (html === null) return null;
        out += `<li>${html}</li>\n`;
        line = end + 1;
      }
      out += '</ul>\n';
      previousList = true;
    } else {
      // a paragraph of one line, starting with a letter, `**` or `[`
      if (!isLetter(first) && first !== 0x2a && first !== 0x5b) return null;
      if (block.includes('\n')) return null;
      const html = inline(block);
      if (html === null) return null;
      out += `<p>${html}</p>\n`;
      previousList = false;
    }
    from = to + 2;
  }
  return out;
}
