import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, loadFixture } from '../../test/load-fixture';

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

describe('pagination.hrefs', () => {
  it('lists every page’s URL when a template reads it, in its place among the keys', async () => {
    fixture = loadFixture('blog');
    const index = fixture.snapshot.templates.find((t) => t.name === 'blog-index')!;
    index.content = index.content.replace(
      '{% endblock %}',
      '<p class="hrefs">{% for href in pagination.hrefs %}[{{ forloop.index }} {{ href }}]{% endfor %} {{ pagination.hrefs.size }} {{ pagination.hrefs | last }}</p>' +
        '<pre>{{ pagination | json }}</pre>{% endblock %}',
    );
    const result = await fixture.build({ mode: 'full' });
    expect(result.errors).toEqual([]);
    for (const path of ['/blog/', '/blog/page/2/', '/blog/page/3/']) {
      const page = await fixture.readFile(path);
      expect(page).toContain(
        '<p class="hrefs">[1 /blog/][2 /blog/page/2/][3 /blog/page/3/] 3 /blog/page/3/</p>',
      );
      const json = /<pre>(.*)<\/pre>/s.exec(page)![1]!.replace(/&(quot|#34);/g, '"');
      const keys = [...json.matchAll(/"(\w+)":/g)].map((m) => m[1]);
      // (the items' own keys come first, inside `items`)
      expect(keys.slice(-7)).toEqual(['total', 'size', 'page', 'pages', 'previous', 'next', 'hrefs']);
      expect(json).toContain('"hrefs":["/blog/","/blog/page/2/","/blog/page/3/"]');
    }
  });
});
