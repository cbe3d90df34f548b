// Tags marked emits without attributes that the sanitizer keeps as they are (void tags are
// excluded: the sanitizer rewrites `<br>` as `<br />`).
const KEPT = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'pre',
  'code',
  'em',
  'strong',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
]);
// What an HTML parser (htmlparser2) closes when a tag opens while one of these is the
// innermost open element; such markup is left to the sanitizer.
const P = ['p'];
const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
const IMPLIED_CLOSE = new Map<string, readonly string[]>([
  ['tr', ['tr', 'th', 'td']],
  ['th', ['th']],
  ['td', ['thead', 'th', 'td']],
  ['a', ['a']],
  ['li', ['li']],
  ['tbody', ['thead', 'tbody']],
  ...HEADINGS.map((tag) => [tag, [...HEADINGS, 'p']] as [string, readonly string[]]),
  ...['p', 'ul', 'ol', 'blockquote', 'pre', 'table'].map((tag) => [tag, P] as [string, readonly string[]]),
]);
// Only URL characters in an href (browsers drop control characters and whitespace inside a
// scheme, so `\x01javascript:` must never reach the scheme check as a relative URL).
const TOKEN =
  /<(\/?)([a-z][a-z0-9]*)(?: href="([\w\-.~:/?#[\]@!$()*+,;=%]+)")?>|&(#39|quot|amp|lt|gt);|[<>&\0]/g;
const SCHEME = /^([a-zA-Z][a-zA-Z0-9.+-]*):/;
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);

/**
 * What the sanitizer of the `markdown` filter (sanitize-html with its options there) returns
 * for `html`, worked out without parsing when `html` is plain enough to be sure: only the
 * tags marked emits for ordinary markdown, no attributes but an `href` with an allowed scheme
 * (or none), properly nested, text with no entities but `&amp; &lt; &gt; &quot; &#39;`. Then
 * the sanitizer keeps everything, decoding `&quot;` and `&#39;` in text. Returns null for
 * anything else (raw HTML, images, task lists, table alignment, other entities, ...): the
 * caller runs the sanitizer then. `plain-html.test.ts` compares both on generated markdown.
 */
export function sanitizedPlainHtml(html: string): string | null {
  const stack: string[] = [];
  let out = '';
  let copied = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(html); match !== null; match = TOKEN.exec(html)) {
    const [token, closing, tag, href, entity] = match;
    if (tag !== undefined) {
      if (!KEPT.has(tag)) return null;
      const top = stack[stack.length - 1];
      if (closing) {
        if (href !== undefined || top !== tag) return null;
        stack.pop();
        continue;
      }
      if (href !== undefined) {
        if (tag !== 'a') return null;
        const scheme = SCHEME.exec(href);
        if (scheme && !SAFE_SCHEMES.has(scheme[1]!)) return null;
      }
      if (top !== undefined && IMPLIED_CLOSE.get(tag)?.includes(top)) return null;
      if (tag === 'a' && stack.includes('a')) return null;
      stack.push(tag);
      continue;
    }
    if (entity === undefined) return null;
    if (entity === '#39' || entity === 'quot') {
      out += html.slice(copied, match.index) + (entity === 'quot' ? '"' : "'");
      copied = match.index + token.length;
    }
  }
  if (stack.length > 0) return null;
  return copied === 0 ? html : out + html.slice(copied);
}
