import { describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import { renderTemplate } from '../render-template';
import type { Snapshot } from '../snapshot/types';
import { checkTemplate } from './check-template';

function render(content: string, options: { item?: string; env?: string; snapshot?: Snapshot } = {}): string {
  return renderTemplate({
    snapshot: options.snapshot ?? readFixtureSnapshot('blog'),
    content,
    ...options,
  }).trim();
}

describe('{% list %}', () => {
  it('filters, sorts, pages and counts', () => {
    expect(
      render("{% list 'post' sort: '-date', limit: 2 as p %}{{ p | map: 'slug' | join: ',' }} {{ p_total }}"),
    ).toBe('static-speed,draft-ideas 5');
    expect(
      render("{% list 'post' sort: 'title', limit: 2, offset: 1 as p %}{{ p | map: 'slug' | join: ',' }}"),
    ).toBe('graph-gardening,hello-world');
    expect(
      render(
        `{% list 'post' where: "date >= '2026-03-01' and status == 'published'" as p %}{{ p | map: 'slug' | join: ',' }}`,
      ),
    ).toBe('liquid-layouts,static-speed');
    expect(render(`{% list 'post' where: "title contains 'Graph'" as p %}{{ p.size }}`)).toBe('1');
  });

  it("speaks core's list language: contains ignores case, quoted values may hold `and`", () => {
    expect(
      render(`{% list 'post' where: "title contains 'graph'" as p %}{{ p | map: 'slug' | join: ',' }}`),
    ).toBe('graph-gardening');
    expect(
      render(
        `{% list 'post' where: "body contains 'layouts and partials'" as p %}{{ p | map: 'slug' | join: ',' }}`,
      ),
    ).toBe('liquid-layouts');
    expect(() => render(`{% list 'post' where: "title == Hello World" as p %}{{ p.size }}`)).toThrow(
      /The list query is not valid: the value of `title == Hello World` is not one value/,
    );
  });

  it('sees only published content outside dev', () => {
    expect(render("{% list 'post' as p %}{{ p_total }}", { env: 'prod' })).toBe('4');
  });

  it('is a parse error without "as <variable>"', () => {
    expect(checkTemplate("{% list 'post' %}")?.message).toMatch(/as <variable>/);
  });
});

describe('{% traverse %}', () => {
  it('follows edges by label and direction, to a depth', () => {
    expect(
      render("{% traverse item 'TAGGED' as t %}{{ t | map: 'name' | join: ',' }}", {
        item: 'post:hello-world',
      }),
    ).toBe('Web');
    expect(
      render("{% traverse 'tag:web' 'TAGGED' direction: 'in' as p %}{{ p | map: 'slug' | join: ',' }}"),
    ).toBe('hello-world,liquid-layouts,static-speed');
    // post -> tag -> other posts with the same tag (the start item excluded)
    expect(
      render("{% traverse item 'TAGGED' direction: 'both', depth: 2 as n %}{{ n | map: 'id' | join: ',' }}", {
        item: 'post:hello-world',
      }),
    ).toBe('tag:web,post:liquid-layouts,post:static-speed');
    expect(render("{% traverse item '*' as n %}{{ n.size }}", { item: 'post:hello-world' })).toBe('2');
  });
});

describe('{% similar %}', () => {
  it('is empty without embeddings and ranks by cosine with them', () => {
    expect(render('{% similar item as s %}{{ s.size }}', { item: 'post:hello-world' })).toBe('0');
    const snapshot = readFixtureSnapshot('blog');
    const vectors: Record<string, number[]> = {
      'post:hello-world': [1, 0],
      'post:graph-gardening': [0, 1],
      'post:liquid-layouts': [0.9, 0.1],
      'post:static-speed': [0.5, 0.5],
    };
    for (const item of snapshot.items) item.embedding = vectors[item.id] ?? null;
    expect(
      render("{% similar item limit: 2 as s %}{{ s | map: 'slug' | join: ',' }}", {
        item: 'post:hello-world',
        snapshot,
      }),
    ).toBe('liquid-layouts,static-speed');
  });
});

describe('filters', () => {
  it('renders markdown sanitized and unescaped, and builds URLs from the public URL', () => {
    expect(render("{{ '**b** <script>x</script>' | markdown }}")).toBe('<p><strong>b</strong> </p>');
    const snapshot = readFixtureSnapshot('blog');
    snapshot.site.publicUrl = 'https://example.org/sub';
    expect(render("{{ '/a/' | relative_url }} {{ '/a/' | absolute_url }}", { snapshot })).toBe(
      '/sub/a/ https://example.org/sub/a/',
    );
    expect(render("{{ 'Héllo, Wörld!' | slugify }} {{ '/media/assets/ab.png' | media_url }}")).toBe(
      'hello-world /media/assets/ab.png',
    );
    expect(render("{{ '2026-01-05T10:00:00Z' | date: '%Y-%m-%d %H:%M' }}")).toBe('2026-01-05 10:00');
  });

  it('has no access to prototypes or the file system', () => {
    expect(render('{{ item.constructor }}{{ item.__proto__ }}', { item: 'post:hello-world' })).toBe('');
    expect(() => render("{% include '/etc/passwd' %}")).toThrow(/Failed to lookup/);
  });
});

describe('checkTemplate', () => {
  it('names the line and column of a parse error', () => {
    expect(checkTemplate('ok\n{{ x | bogus }}')).toMatchObject({ line: 2, column: 1 });
    expect(checkTemplate('{% if x %}\nopen')).toMatchObject({ line: 1 });
    expect(checkTemplate('{{ x | upcase }} {% list "post" as p %}')).toBeNull();
  });
});
