import { describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import { Renderer } from '../render/renderer';
import type { Snapshot } from '../snapshot/types';

/** Renders one route page whose template is `content`, with `partials` added, twice in a row by one renderer. */
function renderTwice(content: string, partials: Record<string, string>, limits = {}) {
  const snapshot = structuredClone(readFixtureSnapshot('blog')) as Snapshot;
  for (const [name, text] of Object.entries(partials))
    snapshot.templates.push({ name, content: text, boundType: '', enabled: true, version: 1 } as never);
  snapshot.templates.push({ name: 'page', content, boundType: '', enabled: true, version: 1 } as never);
  const urls = Object.fromEntries(snapshot.items.map((item) => [item.id, `/${item.id.replace(':', '/')}/`]));
  const renderer = new Renderer({ snapshot, env: 'dev', urls, limits });
  const spec = (n: number): ArtifactSpec => ({
    kind: 'route',
    key: `route:/p${n}/`,
    file: `p${n}/index.html`,
    path: `/p${n}/`,
    route: { slug: `p${n}`, path: `/p${n}/`, template: 'page', title: 'P' } as never,
    template: 'page',
    page: 1,
    pages: 1,
  });
  return [renderer.render(spec(1)), renderer.render(spec(2))];
}

describe('memoized {% render %}', () => {
  it('gives the same page and dependencies on a hit as on the first render', () => {
    const [first, second] = renderTwice(
      "{% list 'post' sort: 'title', limit: 3 as posts %}{% for post in posts %}{% render '_c', post: post %}{% endfor %}",
      { _c: '<i>{{ post.title }}</i>{% render "_d", post: post %}', _d: '<b>{{ post.excerpt }}</b>' },
    );
    expect(first!.error).toBeUndefined();
    expect(second!.html).toBe(first!.html);
    expect(second!.deps).toEqual(first!.deps);
    // the nested partial's read is recorded on the second page too
    expect(Object.values(second!.deps.items).some((dep) => dep.includes('excerpt'))).toBe(true);
  });

  it('renders a partial again for arguments that change in place or are made per page (forloop, arrays)', () => {
    const [first] = renderTwice(
      "{% list 'post' sort: 'title', limit: 3 as posts %}{% for post in posts %}{% render '_n', loop: forloop %}{% endfor %}|{% render '_all', posts: posts %}",
      { _n: '{{ loop.index }}', _all: '{{ posts.size }}' },
    );
    expect(first!.html).toBe('123|3');
  });

  it('leaves partials that read the clock unmemoized, and is off for the strict undefined-variable pass', () => {
    const [first, second] = renderTwice("{% render '_t', x: 1 %}", { _t: "{{ 'now' | date: '%Y' }}{{ x }}" });
    expect(second!.html).toBe(first!.html);
    const [strict] = renderTwice(
      "{% render '_u', x: 1 %}{% render '_u', x: 1 %}",
      { _u: '{{ missing }}' },
      { reportUndefined: true },
    );
    expect(strict!.undefinedVariables?.map((found) => found.variable)).toEqual(['missing']);
  });
});
