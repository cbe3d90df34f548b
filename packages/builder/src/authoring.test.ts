import { afterEach, describe, expect, it } from 'vitest';
import { addAuthoring } from '../test/authoring-site';
import { type Fixture, loadFixture } from '../test/load-fixture';
import { build } from './build';

const open: Fixture[] = [];
afterEach(() => {
  for (const fixture of open.splice(0)) fixture.cleanup();
});

function blog(): Fixture {
  const fixture = loadFixture('blog');
  open.push(fixture);
  addAuthoring(fixture.snapshot);
  return fixture;
}

function all(html: string, pattern: RegExp): string[] {
  return [...html.matchAll(pattern)].map((match) => match[1]!);
}

/** Adds `count` notes (a type without pages) labelled `label`, dated one minute apart. */
function addNotes(fixture: Fixture, count: number, label: string): void {
  fixture.snapshot.types.push({ name: 'note', emitPages: false, fields: [{ name: 'title', type: 'text' }] });
  for (let n = 0; n < count; n++) {
    fixture.snapshot.items.push({
      id: `note:${String(n).padStart(5, '0')}`,
      type: 'note',
      fields: { title: `Note ${n}`, labels: [label], n },
    });
  }
}

describe('pagination over a field’s distinct values', () => {
  it('emits one page set per value, at the value’s slug, with the value and its items', async () => {
    const fixture = blog();
    const result = await fixture.build({ mode: 'full' });
    expect(result.errors).toEqual([]);
    // values: Small Talk, graphs, intro, news (3 posts: 2 pages), rock'n'roll
    for (const path of ['/labels/small-talk/', '/labels/graphs/', '/labels/intro/', '/labels/rock-n-roll/']) {
      expect(fixture.pathExists(path), path).toBe(true);
    }
    const news = await fixture.readFile('/labels/news/');
    expect(news).toContain('<h1>news</h1>');
    expect(news).toContain('<p class="pages">1/2 of 3</p>');
    expect(all(news, /<li class="p">([^<]*)</g)).toEqual(['Static Speed', 'Liquid Layouts']);
    const second = await fixture.readFile('/labels/news/page/2/');
    expect(all(second, /<li class="p">([^<]*)</g)).toEqual(['Hello World']);
    expect(fixture.pathExists('/labels/news/page/3/')).toBe(false);
    expect(result.renderedKeys).toContain('route:/labels/news/#2');
  });

  it('lists every item of a value with more than 1,000 items, across its pages', async () => {
    const fixture = blog();
    addNotes(fixture, 1207, 'big');
    fixture.snapshot.routes!.push({
      slug: 'notes-by-label',
      path: '/notes/{value}/',
      kind: 'listing',
      template: 'label',
      paginate: { type: 'note', field: 'labels', size: 500, sort: 'n' },
    });
    const result = await fixture.build({ mode: 'full' });
    expect(result.errors).toEqual([]);
    const titles: string[] = [];
    for (const [n, path] of ['/notes/big/', '/notes/big/page/2/', '/notes/big/page/3/'].entries()) {
      const page = await fixture.readFile(path);
      expect(page.includes(`<p class="pages">${n + 1}/3 of 1207</p>`), path).toBe(true);
      titles.push(...all(page, /<li class="p">([^<]*)</g));
    }
    expect(titles).toHaveLength(1207);
    expect(new Set(titles).size).toBe(1207);
    expect(titles.at(-1)).toBe('Note 1206');
  });
});

describe('no silent truncation', () => {
  it('fails the build naming the template and the count when a list asks for more than 1,000 of more', async () => {
    const fixture = blog();
    addNotes(fixture, 1207, 'big');
    fixture.snapshot.templates.push({
      name: 'everything',
      content: `{% list 'note' where: "labels contains $l" l: 'big', limit: 5000 as notes %}{{ notes.size }}`,
    });
    fixture.snapshot.routes!.push({
      slug: 'everything',
      path: '/everything/',
      kind: 'page',
      template: 'everything',
    });
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(false);
    const error = result.errors.find((e) => e.key === 'route:/everything/#1');
    expect(error).toMatchObject({ code: 'render_failed', template: 'everything' });
    expect(error!.message).toContain(`{% list 'note' %} in template "everything" matched 1207 items`);
    expect(error!.message).toContain('more than the 1000');
    // nothing was deployed
    expect(fixture.pathExists('/everything/')).toBe(false);

    // within the limit it renders (a limit above 1,000 with fewer matches is fine)
    fixture.snapshot.templates.find((t) => t.name === 'everything')!.content =
      `{% list 'note' where: "labels contains $l" l: 'big', limit: 1000, offset: 1000 as notes %}{{ notes.size }}`;
    const paged = await fixture.build({ mode: 'full' });
    expect(paged.errors).toEqual([]);
    expect(await fixture.readFile('/everything/')).toBe('207');
  });
});

describe('parameters in conditions', () => {
  it('binds a value holding a quote: it matches exactly, never spliced into the condition', async () => {
    const fixture = blog();
    fixture.snapshot.items.push({
      id: 'post:obrien',
      type: 'post',
      fields: { title: `O'Brien says "and x == y"`, date: '2026-01-01', labels: [] },
    });
    fixture.snapshot.templates.push({
      name: 'quoted',
      content:
        `{% assign wanted = "O'Brien says \\"and x == y\\"" %}` +
        `{% list 'post' where: "title == $t", t: wanted as hits %}{{ hits_total }}:{% for h in hits %}{{ h.id }}{% endfor %}` +
        `|{% list 'post' where: "labels contains $v", v: "rock'n'roll" as rock %}{{ rock_total }}:{{ rock.first.id }}`,
    });
    fixture.snapshot.routes!.push({ slug: 'quoted', path: '/quoted/', kind: 'page', template: 'quoted' });
    const result = await fixture.build({ mode: 'full' });
    expect(result.errors).toEqual([]);
    expect(await fixture.readFile('/quoted/')).toBe('1:post:obrien|1:post:graph-gardening');
    // the label page of the quoted value lists it, through a bound `$v`
    expect(await fixture.readFile('/labels/rock-n-roll/')).toContain('<p class="again">1</p>');
  });

  it('fails the page naming an unbound parameter', async () => {
    const fixture = blog();
    fixture.snapshot.templates.push({
      name: 'unbound',
      content: `{% list 'post' where: "labels contains $nope" as x %}`,
    });
    fixture.snapshot.routes!.push({ slug: 'unbound', path: '/unbound/', kind: 'page', template: 'unbound' });
    const result = await fixture.build({ mode: 'full' });
    expect(result.errors[0]!.message).toContain('$nope, which is not bound');
  });
});

describe('site collections', () => {
  it('are read by templates, and a change re-renders exactly the pages that read them', async () => {
    const fixture = blog();
    const first = await fixture.build({ mode: 'full' });
    expect(first.errors).toEqual([]);
    const people = await fixture.readFile('/people/');
    expect(all(people, /<li class="author">([^<]*)</g)).toEqual(['Ada']);
    expect(all(people, /<li class="label">(.*?)<\/li>/g)).toEqual([
      '<a href="/labels/small-talk/">Small Talk</a> 1: Static Speed',
      '<a href="/labels/graphs/">graphs</a> 1: Graph Gardening',
      '<a href="/labels/intro/">intro</a> 1: Hello World',
      '<a href="/labels/news/">news</a> 3: Static Speed',
      '<a href="/labels/rock-n-roll/">rock&#39;n&#39;roll</a> 1: Graph Gardening',
    ]);

    // renaming the author: only pages that read the author (the collection, or the item) render
    const ada = fixture.snapshot.items.find((i) => i.id === 'author:ada')!;
    ada.fields = { name: 'Ada Lovelace' };
    const second = await fixture.build({ mode: 'incremental' });
    expect(second.effectiveMode).toBe('incremental');
    expect(second.renderedKeys).toContain('route:/people/#1');
    // the collection holds the same items: the page re-renders for the name it read of one of them
    expect(second.reasons).toEqual({ 'item-changed': second.rendered });
    expect(second.renderedKeys).not.toContain('route:/labels/news/#1');
    expect(all(await fixture.readFile('/people/'), /<li class="author">([^<]*)</g)).toEqual(['Ada Lovelace']);

    // an item's edit that changes no collection leaves the page alone
    const about = fixture.snapshot.items.find((i) => i.id === 'page:about')!;
    about.fields = { ...about.fields, body: 'Changed.' };
    const third = await fixture.build({ mode: 'incremental' });
    expect(third.renderedKeys).not.toContain('route:/people/#1');
    expect(third.reasons).toEqual({ 'item-changed': third.rendered });
  });

  it('are recorded once per page as a dependency (a list query with the collection name)', async () => {
    const fixture = blog();
    const result = await fixture.build({ mode: 'full' });
    const people = result.manifest!.artifacts.find((a) => a.key === 'route:/people/#1')!;
    const keys = Object.keys(people.deps.queries);
    expect(keys.filter((k) => k.includes('"collection":"authors"'))).toHaveLength(1);
    expect(keys.filter((k) => k.includes('"collection":"labels"'))).toHaveLength(1);
  });
});

describe('validate builds', () => {
  it('report undefined variables with their template, line and variable', async () => {
    const fixture = blog();
    fixture.snapshot.templates.find((t) => t.name === 'people')!.content =
      '<h1>{{ page.title }}</h1>\n{% if item.nothing %}no{% endif %}{{ missing | default: "ok" }}\n<p>{{ site.collections.authors.first.nickname }}</p>\n{{ undefined_thing }}';
    const result = await build({ source: fixture.snapshot, mode: 'validate', workers: 1 });
    expect(result.ok).toBe(true);
    const found = result.warnings.filter((w) => w.code === 'undefined_variable' && w.template === 'people');
    expect(found.map(({ line, variable }) => ({ line, variable }))).toEqual([
      { line: 3, variable: 'site.collections.authors.first.nickname' },
      { line: 4, variable: 'undefined_thing' },
    ]);
    expect(found[0]!.message).toContain('people:3: site.collections.authors.first.nickname has no value');
    // the page still renders as before
    expect(result.files.some((f) => f.file === 'people/index.html')).toBe(true);

    // a build that deploys does not look for them
    const deployed = await fixture.build({ mode: 'full' });
    expect(deployed.warnings.filter((w) => w.code === 'undefined_variable')).toEqual([]);
  });
});

describe('date sorting', () => {
  it('orders dates stored in different time zones by instant', async () => {
    const fixture = blog();
    const dates: Record<string, string> = {
      'post:hello-world': '2026-05-01T10:00:00+02:00', // 08:00Z
      'post:graph-gardening': '2026-05-01T09:30:00Z',
      'post:liquid-layouts': '2026-05-01T08:15:00Z',
      'post:draft-ideas': '2026-05-01T03:01:00-05:00', // 08:01Z
      'post:static-speed': '2026-04-30',
    };
    for (const item of fixture.snapshot.items) {
      if (dates[item.id]) item.fields = { ...item.fields, date: dates[item.id] };
    }
    fixture.snapshot.templates.push({
      name: 'by-date',
      content: `{% list 'post' sort: 'date' as posts %}{% for p in posts %}{{ p.id }} {% endfor %}`,
    });
    fixture.snapshot.routes!.push({ slug: 'by-date', path: '/by-date/', kind: 'page', template: 'by-date' });
    await fixture.build({ mode: 'full' });
    expect((await fixture.readFile('/by-date/')).trim().split(' ')).toEqual([
      'post:static-speed',
      'post:hello-world',
      'post:draft-ideas',
      'post:liquid-layouts',
      'post:graph-gardening',
    ]);
  });
});

describe('the build result', () => {
  it('says how many pages it rendered and why', async () => {
    const fixture = blog();
    const full = await fixture.build({ mode: 'full' });
    expect(full.reasons).toEqual({ full: full.rendered });

    const post = fixture.snapshot.items.find((i) => i.id === 'post:graph-gardening')!;
    post.fields = { ...post.fields, title: 'Graph Gardening, Revised' };
    fixture.snapshot.templates.find((t) => t.name === 'people')!.content += '<!-- v2 -->';
    const next = await fixture.build({ mode: 'incremental' });
    expect(next.effectiveMode).toBe('incremental');
    const total = Object.values(next.reasons).reduce((a, b) => a + b, 0);
    expect(total).toBe(next.rendered);
    expect(next.reasons['template-changed']).toBe(1);
    // the post's own page, and the listings showing its title (items are recorded per field;
    // the lists hold the same posts in the same order)
    expect(next.reasons['item-changed']).toBeGreaterThanOrEqual(2);
    expect(next.reasons['query-changed']).toBeUndefined();
  });
});
