import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { prng, testSeed } from '../../test/seed';
import { markdownToHtml, sanitize } from './filters';
import { sanitizedPlainHtml } from './plain-html';
import { plainMarkdown } from './plain-markdown';

/** What the filter gives through marked (and the sanitizer when the markup is not plain). */
function throughMarked(source: string): string {
  const html = marked.parse(source, { async: false, gfm: true }) as string;
  return sanitizedPlainHtml(html) ?? sanitize(html);
}

// Plain words, then fragments at the edge of what the fast path takes (each of them either
// taken or left to marked), then ones it must leave.
const WORDS = ['lorem', 'Ipsum', 'dolor', 'x', 'A1', '2024', 'www', 'http', 'wwwx'];
const EDGE = [
  "it's",
  '"quoted"',
  '(aside)',
  'a-b',
  '5%',
  '$3',
  'a+b=c',
  'and/or',
  'so;',
  'note:',
  'why?',
  'yes!',
  '**bold words**',
  '**bold**.',
  '**bold**,',
  '**bold**!',
  '**bold**x',
  '** bold**',
  '**bold **',
  '**a**b**',
  '***x***',
  '[a link](https://example.org/a)',
  '[a link](http://example.org/a-b_c.d/)',
  '[a link](https://example.org/a).',
  '[a link](https://example.org/a)x',
  '![img](https://example.org/a.png)',
  '[t](https://example.org/a "title")',
  '[t](javascript:alert(1))',
  '[t](/relative)',
  '[t]( https://example.org)',
  '[t](https://example.org/?a=1&b=2)',
  '[ t ](https://example.org)',
  '[t] (https://example.org)',
  '[t]',
  '[^1]',
  'x://y',
  'https://auto.example.org',
  'www.example.org',
  'WWW.EXAMPLE.ORG',
  'mail@example.org',
  '_em_',
  '*em*',
  '~~del~~',
  '`code`',
  '\\*',
  '<b>',
  'a > b',
  'a & b',
  '&amp;',
  '#hash',
  'a | b',
  'naïve',
  '\u00a0',
  '--',
  '1.',
  '2)',
  '+',
  '=',
  '  ',
  '\t',
];

function words(rand: () => number, edgy: boolean): string {
  const parts: string[] = [];
  const n = 1 + Math.floor(rand() * 8);
  for (let i = 0; i < n; i++) {
    const list = edgy && rand() < 0.35 ? EDGE : WORDS;
    parts.push(list[Math.floor(rand() * list.length)]!);
  }
  return parts.join(rand() < 0.95 ? ' ' : '');
}

function block(rand: () => number, edgy: boolean): string {
  const r = rand();
  if (r < 0.45) return words(rand, edgy);
  if (r < 0.6)
    return `${'#'.repeat(1 + Math.floor(rand() * (edgy ? 8 : 6)))}${edgy && rand() < 0.1 ? '' : ' '}${words(rand, edgy)}`;
  if (r < 0.8) {
    const items = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => {
      if (!edgy || rand() < 0.7) return `- ${words(rand, edgy)}`;
      return ['  - nested', '* star', '+ plus', '1. one', '-x', '- [ ] task', '- ', 'lazy line', '- # h'][
        Math.floor(rand() * 9)
      ]!;
    });
    return items.join('\n');
  }
  if (!edgy) return words(rand, edgy);
  return [
    `${words(rand, edgy)}\n${words(rand, edgy)}`,
    '---',
    `Setext\n===`,
    '    indented',
    ' leading space',
    'trailing space ',
    '```\ncode\n```',
    '> quote',
    '<div>x</div>',
    '[ref]: https://example.org',
    '1. ordered',
    '',
  ][Math.floor(rand() * 12)]!;
}

describe('plainMarkdown', () => {
  it('gives what marked and the sanitizer give, whenever it gives anything', () => {
    const rand = prng(testSeed('plain-markdown.test.ts', 11));
    let taken = 0;
    let takenEdgy = 0;
    let left = 0;
    const total = 4000;
    for (let i = 0; i < total; i++) {
      const edgy = i % 2 === 1;
      const blocks = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => block(rand, edgy));
      let source = '';
      for (const [n, b] of blocks.entries()) {
        if (n > 0)
          source +=
            edgy && rand() < 0.15 ? ['\n', '\n\n\n', '\n \n', '\r\n\r\n'][Math.floor(rand() * 4)] : '\n\n';
        source += b;
      }
      if (edgy && rand() < 0.2) source = ['\n', ' ', '\n\n'][Math.floor(rand() * 3)] + source;
      if (rand() < 0.2) source += ['\n', '\n\n', ' '][Math.floor(rand() * 3)];
      const fast = plainMarkdown(source);
      if (fast === null) {
        left++;
        continue;
      }
      taken++;
      if (edgy) takenEdgy++;
      expect({ source, html: fast }).toEqual({ source, html: throughMarked(source) });
      expect(markdownToHtml(source)).toBe(fast);
    }
    // much of the plain half is taken (not: a paragraph starting with a digit, two lists a
    // blank line apart), some of the edgy half; much of the edgy half is left to marked
    expect(taken).toBeGreaterThan(total / 4);
    console.info(`taken ${taken} (edgy ${takenEdgy}), left to marked ${left}`);
    expect(takenEdgy).toBeGreaterThan(total / 100);
    expect(left).toBeGreaterThan(total / 5);
  });

  it('gives what marked gives for lines of words and edge fragments', () => {
    const rand = prng(testSeed('plain-markdown.test.ts lines', 12));
    let taken = 0;
    const total = 4000;
    for (let i = 0; i < total; i++) {
      const lead = ['', '# ', '- ', '### '][Math.floor(rand() * 4)]!;
      const source = `${lead}${WORDS[Math.floor(rand() * 4)]} ${words(rand, true)}`;
      const fast = plainMarkdown(source);
      if (fast === null) continue;
      taken++;
      expect({ source, html: fast }).toEqual({ source, html: throughMarked(source) });
    }
    expect(taken).toBeGreaterThan(total / 10);
  });

  it('takes prose, headings, lists, strong runs and links, and leaves the rest to marked', () => {
    const prose =
      '## A heading\n\nSome **bold words** and "quotes", it\'s [a link](https://example.org/a).\n\n- one\n- two\n\nThe end.\n';
    expect(plainMarkdown(prose)).toBe(
      '<h2>A heading</h2>\n<p>Some <strong>bold words</strong> and "quotes", it\'s <a href="https://example.org/a">a link</a>.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<p>The end.</p>\n',
    );
    expect(plainMarkdown(prose)).toBe(throughMarked(prose));
    for (const source of [
      '',
      '- a\n\n- b',
      'a\nb',
      'see www.example.org',
      'see https://example.org',
      '[x](javascript:alert(1))',
      'a _b_',
      'a <b>',
      'a & b',
      '1. one',
      'naïve',
      '- [ ] task',
    ]) {
      expect(plainMarkdown(source)).toBeNull();
      expect(markdownToHtml(source)).toBe(throughMarked(source));
    }
  });
});
