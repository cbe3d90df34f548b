import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { prng, testSeed } from '../../test/seed';
import { markdownToHtml, sanitize } from './filters';
import { sanitizedPlainHtml } from './plain-html';

const URLS = [
  'https://example.org/a',
  'https://example.org/a?b=1&c=2',
  "https://example.org/it's",
  '/relative/path/',
  'relative',
  '#anchor',
  '//cdn.example.org/x',
  'mailto:a@example.org',
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  'http://x.org/"q"',
  'JAVASCRIPT:alert(1)',
  'data:text/html;base64,PHNjcmlwdD4=',
  'vbscript:x',
  'ftp://example.org/',
  'java\tscript:alert(1)',
  '',
  'https://example.org/a b',
  'https://example.org/<x>',
];
const INLINE = [
  'word',
  'another',
  "it's",
  '"quoted"',
  'a & b',
  '&amp;',
  '&lt;tag&gt;',
  '<',
  '>',
  'a<b',
  '**bold**',
  '_em_',
  '*em*',
  '`code <x>`',
  'www.example.org',
  'https://auto.example.org/path',
  '<https://angle.example.org>',
  'naïve café ☕',
  '\\*escaped\\*',
  'someone@example.org',
  '&copy;',
  '&#x27;',
  '&#39;',
  '&quot;',
  '~~gone~~',
  '``a ` b``',
  '<b>raw</b>',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="https://ok.org">ok</a>',
  '<!-- comment -->',
  '<span style="color:red">s</span>',
  'trailing  \nbreak',
  '[^1]',
];

// Fragments of everyday markdown (the first ones of each list), then unusual ones.
const ORDINARY_URLS = 9;
const ORDINARY_INLINE = 20;

function inline(rand: () => number, ordinary: boolean): string {
  const pick = (list: readonly string[]) => {
    const ordinaryCount = list === URLS ? ORDINARY_URLS : ORDINARY_INLINE;
    return list[Math.floor(rand() * (ordinary ? Math.min(list.length, ordinaryCount) : list.length))]!;
  };
  const parts: string[] = [];
  const n = 1 + Math.floor(rand() * 8);
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.12) parts.push(`[${pick(INLINE)}](${pick(URLS)})`);
    else if (ordinary) parts.push(pick(INLINE));
    else if (r < 0.15) parts.push(`[t](${pick(URLS)} "a title")`);
    else if (r < 0.18) parts.push(`![alt](${pick(URLS)})`);
    else parts.push(pick(INLINE));
  }
  return parts.join(' ');
}

function block(rand: () => number, ordinary: boolean): string {
  if (ordinary) {
    const r = rand();
    if (r < 0.5) return inline(rand, ordinary);
    if (r < 0.6) return `${'#'.repeat(1 + Math.floor(rand() * 6))} ${inline(rand, ordinary)}`;
    if (r < 0.75)
      return `- ${inline(rand, ordinary)}\n- ${inline(rand, ordinary)}\n  - ${inline(rand, ordinary)}`;
    if (r < 0.8)
      return `1. ${inline(rand, ordinary)}\n2. ${inline(rand, ordinary)}\n\n3. ${inline(rand, ordinary)}`;
    if (r < 0.85) return `> ${inline(rand, ordinary)}\n> > ${inline(rand, ordinary)}`;
    if (r < 0.9) return '```\nconst a = \'<x>\' && "y";\n```';
    if (r < 0.95) return `| a | b |\n|---|---|\n| ${inline(rand, ordinary)} | 2 |`;
    return `${inline(rand, ordinary)}\n${inline(rand, ordinary)}`;
  }
  const r = rand();
  if (r < 0.3) return inline(rand, ordinary);
  if (r < 0.38) return `${'#'.repeat(1 + Math.floor(rand() * 6))} ${inline(rand, ordinary)}`;
  if (r < 0.48)
    return `- ${inline(rand, ordinary)}\n- ${inline(rand, ordinary)}\n  - ${inline(rand, ordinary)}`;
  if (r < 0.52) return `- [ ] ${inline(rand, ordinary)}\n- [x] ${inline(rand, ordinary)}`;
  if (r < 0.58)
    return `${1 + Math.floor(rand() * 3)}. ${inline(rand, ordinary)}\n2. ${inline(rand, ordinary)}\n\n3. ${inline(rand, ordinary)}`;
  if (r < 0.63) return `> ${inline(rand, ordinary)}\n> > ${inline(rand, ordinary)}`;
  if (r < 0.68) return `\`\`\`${rand() < 0.5 ? 'js' : ''}\nconst a = '<x>' && "y";\n\`\`\``;
  if (r < 0.71) return `    indented <code> & 'x'`;
  if (r < 0.76) return `| a | b |\n|${rand() < 0.5 ? ':--' : '---'}|---|\n| ${inline(rand, ordinary)} | 2 |`;
  if (r < 0.78) return '---';
  if (r < 0.8) return `Setext\n${rand() < 0.5 ? '===' : '---'}`;
  if (r < 0.83) return '<div>\nblock html\n</div>';
  if (r < 0.85) return `[^1]: ${inline(rand, ordinary)}`;
  if (r < 0.87) return `[ref]: ${'https://example.org/r'}\n\n[link][ref]`;
  return `${inline(rand, ordinary)}\n${inline(rand, ordinary)}`;
}

describe('sanitizedPlainHtml', () => {
  it('equals the sanitizer on generated markdown, and handles ordinary markdown without it', () => {
    const rand = prng(testSeed('plain-html.test.ts', 7));
    let plain = 0;
    const total = 2000;
    for (let i = 0; i < total; i++) {
      const ordinary = i % 2 === 0;
      const source = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => block(rand, ordinary)).join(
        '\n\n',
      );
      const html = marked.parse(source, { async: false, gfm: true }) as string;
      const fast = sanitizedPlainHtml(html);
      const slow = sanitize(html);
      if (fast !== null) {
        plain++;
        expect({ source, out: fast }).toEqual({ source, out: slow });
      }
      expect(markdownToHtml(source)).toBe(slow);
    }
    // half the documents are everyday markdown (with the odd javascript: link)
    expect(plain).toBeGreaterThan(total / 5);
  });

  it('takes the plain path for ordinary markdown only', () => {
    const ordinary = marked.parse(
      '# Title\n\nSome **bold** and _em_ text, it\'s "fine" & [a link](https://example.org/?a=1).\n\n- one\n- two\n\n```\ncode <x>\n```\n\n> quote',
      { async: false, gfm: true },
    ) as string;
    const fast = sanitizedPlainHtml(ordinary);
    expect(fast).not.toBeNull();
    expect(fast).toContain(`it's "fine" &amp; <a href="https://example.org/?a=1">`);
    for (const html of [
      '<p><a href="javascript:alert(1)">x</a></p>',
      '<p><a href="JavaScript:alert(1)">x</a></p>',
      // browsers drop leading control characters: this is a javascript: URL, not a relative one
      '<p><a href="\u0001javascript:alert(1)">x</a></p>',
      '<p><a href="java\u0000script:alert(1)">x</a></p>',
      '<p><a href="">x</a></p>',
      '<p><a href="\x01javascript:alert(1)">x</a></p>',
      '<p><a href="\tjavascript:alert(1)">x</a></p>',
      '<p><a href="java\nscript:alert(1)">x</a></p>',
      '<p><img src="x"></p>',
      '<p><script>alert(1)</script></p>',
      '<p onclick="x">a</p>',
      '<p>a<p>b</p></p>',
      '<p>&copy;</p>',
      '<p>a & b</p>',
      '<p>a</p><ul>',
      '<p>a</li>',
      '<del>x</del>',
      '<p>x<br>y</p>',
    ]) {
      expect(sanitizedPlainHtml(html)).toBeNull();
    }
  });
});
