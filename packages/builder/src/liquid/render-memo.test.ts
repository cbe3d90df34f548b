import { describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import { Renderer } from '../render/renderer';
import type { Snapshot } from '../snapshot/types';
import { emptyDeps } from '../source/tracking-reader';
import { MEMO_WINDOW, MIN_HITS_PER_WINDOW, RenderMemo } from './render-memo';

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

describe('a partial whose memoized outputs are not hit is no longer memoized', () => {
  const recorded = () => ({ html: 'x', reads: [], deps: emptyDeps() });

  it('stops after a window of recordings with fewer hits than one per eight, and starts again when cleared', () => {
    const memo = new RenderMemo(() => true);
    for (let i = 0; i < MEMO_WINDOW - 1; i++) {
      const slot = memo.slotOf('_card', { n: i }, null);
      expect(slot).not.toBeNull();
      memo.set(slot!, recorded(), '_card');
      // one hit fewer than the window needs
      if (i < MIN_HITS_PER_WINDOW - 1) memo.hit('_card');
    }
    expect(memo.stopped('_card')).toBe(false);
    // an output recorded before is still served
    expect(memo.slotOf('_card', { n: 0 }, null)?.recorded?.html).toBe('x');
    memo.set(memo.slotOf('_card', { n: MEMO_WINDOW }, null)!, recorded(), '_card');
    expect(memo.stopped('_card')).toBe(true);
    expect(memo.slotOf('_card', { n: 0 }, null)).toBeNull();
    memo.clear();
    expect(memo.stopped('_card')).toBe(false);
    expect(memo.slotOf('_card', { n: 0 }, null)).not.toBeNull();
  });

  it('goes on with a partial hit once per eight recordings or more, and with other partials when one stops', () => {
    const memo = new RenderMemo(() => true);
    memo.set(memo.slotOf('_tag', { name: 'a' }, null)!, recorded(), '_tag');
    for (let i = 0; i < 3 * MEMO_WINDOW; i++) {
      memo.set(memo.slotOf('_date', { n: i }, null)!, recorded(), '_date');
      if (i % 8 === 0) memo.hit('_date');
      // never hit
      memo.set(memo.slotOf('_link', { n: i }, null)!, recorded(), '_link');
      const tag = memo.slotOf('_tag', { name: 'a' }, null);
      expect(tag?.recorded?.html).toBe('x');
      memo.hit('_tag');
      if (memo.stopped('_link')) break;
    }
    expect(memo.stopped('_link')).toBe(true);
    expect(memo.stopped('_date')).toBe(false);
    expect(memo.stopped('_tag')).toBe(false);
    expect(memo.slotOf('_link', { n: 1 }, null)).toBeNull();
    expect(memo.slotOf('_date', { n: 1 }, null)?.recorded?.html).toBe('x');
    expect(memo.slotOf('_tag', { name: 'a' }, null)?.recorded?.html).toBe('x');
    for (let i = 0; i < 2 * MEMO_WINDOW; i++) {
      memo.set(memo.slotOf('_date', { n: -1 - i }, null)!, recorded(), '_date');
      if (i % 8 === 0) memo.hit('_date');
    }
    expect(memo.stopped('_date')).toBe(false);
  });

  it('renders the same page while it records, after the partial stops and on a later page', () => {
    const count = MEMO_WINDOW + 100;
    const [first, second] = renderTwice(
      `{% for i in (1..${count}) %}{% render '_n', x: i %}{% endfor %}|{% render '_s', x: 1 %}`,
      { _n: '{{ x | modulo: 7 }}', _s: 'same' },
    );
    let expected = '';
    for (let i = 1; i <= count; i++) expected += String(i % 7);
    expect(first!.error).toBeUndefined();
    expect(first!.html).toBe(`${expected}|same`);
    expect(second!.html).toBe(first!.html);
    expect(second!.deps).toEqual(first!.deps);
  });
});
