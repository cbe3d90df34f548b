import { Drop, Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { installSyncRender } from './sync-render';

class Counting extends Drop {
  reads: string[] = [];
  override liquidMethodMissing(key: string): unknown {
    this.reads.push(key);
    if (key === 'lazy')
      return (function* () {
        yield 1;
        return 'from a generator';
      })();
    return key === 'missing' ? undefined : `<${key}>`;
  }
}

const TEMPLATES = [
  'plain text only',
  '{{ a }}|{{ a.b }}|{{ a["b"] }}|{{ list[1] }}|{{ list.size }}|{{ list.first }}|{{ list.last }}',
  '{{ s | upcase | append: "!" | escape }} {{ s | default: "none" }} {{ nothing | default: "none" }}',
  '{{ n | plus: 2 | times: 3 }} {{ 5 | minus: n }} {{ "x" }} {{ 1.5 }} {{ true }} {{ nil }}',
  '{{ html }} {{ html | raw }} {{ html | escape }} {{ html | strip_html }}',
  '{{ drop.title }} {{ drop.missing }} {{ drop.lazy }} {{ drop }}',
  '{% for x in list %}{{ forloop.index }}:{{ x }}{% if x == 2 %}{% break %}{% endif %},{% endfor %}',
  '{% for x in list %}{% if x == 1 %}{% continue %}{% endif %}{{ x }}{% endfor %}',
  '{% assign t = s | split: "" %}{{ t | join: "-" }} {% capture c %}[{{ s }}]{% endcapture %}{{ c }}',
  '{{ (1..3) | join: "," }} {{ list | map: "x" | size }} {{ obj | json }}',
  '{{ a.b == 1 }} {{ n > 1 and n < 10 }} {{ missing.deep.path }}',
  '{{ date | date: "%Y-%m-%d %B" }} {{ "2024-02-29T10:00:00Z" | date: "%b %e, %Y %H:%M" }}',
  '{% if a %}{{ a.b }}{% else %}none{% endif %}{% unless s %}x{% endunless %}{% case n %}{% when 3 %}three{% else %}other{% endcase %}',
  '{{ s | truncate: 3, "…" }} {{ s | replace: "e", "E" }} {{ s | slice: 1, 2 }}',
  // tags rendered without liquidjs's generators: for, if, unless, assign, layout, block
  '{% for x in list reversed offset: 1 limit: 1 %}{{ x }}{% endfor %}|{% for x in list limit: 2 reversed %}{{ x }}{% endfor %}',
  '{% for x in list limit: 2 %}{{ x }}{% endfor %}{% for x in list offset: continue %}{{ x }}{% endfor %}',
  '{% for x in list %}{{ forloop.index0 }}{{ forloop.first }}{{ forloop.last }}{{ forloop.rindex }}{{ forloop.length }}{{ forloop.name }}{% endfor %}',
  '{% for x in nothing %}a{% else %}empty{% endfor %}{% for x in "" %}a{% else %}e2{% endfor %}{% for c in "abc" %}[{{ c }}]{% endfor %}',
  '{% for pair in obj %}{{ pair[0] }}={{ pair[1] }};{% endfor %}{% for i in (1..n) %}{% for j in (i..3) %}{{ i }}{{ j }}{% endfor %}{% endfor %}',
  '{% for x in list %}{% for y in list %}{% if y == 2 %}{% break %}{% endif %}{{ x }}{{ y }}{% endfor %}{% if x == 2 %}{% continue %}{% endif %}.{% endfor %}',
  '{% for x in drop %}{{ x }}{% endfor %}{% for x in list offset: n limit: "1" %}{{ x }}{% else %}none{% endfor %}',
  '{% if n > 5 %}big{% elsif n == 3 %}three{% else %}small{% endif %}{% if drop.title %}t{% endif %}{% if nothing %}x{% elsif "" %}empty string{% endif %}',
  '{% unless n == 3 %}not three{% elsif s %}s{% else %}else{% endunless %}{% unless missing %}no{% endunless %}',
  '{% assign a = list | first %}{{ a }}{% assign d = drop.title | upcase %}{{ d }}{% assign m = nothing.deep %}[{{ m }}]',
  '{% layout "page" %}{% block main %}<p>{{ s }}</p>{{ block.super }}{% endblock %}{% block side %}{{ n }}{% endblock %}',
  '{% layout "page" title: "T" %}{% block main %}{% for x in list %}{{ x }}{% endfor %}{% endblock %}',
  '{% layout "mid" %}{% block side %}child side, {{ block.super }}{% endblock %}',
  '{% layout "page" %}outside any block {{ n }}',
  '{% block main %}no layout{% endblock %}{% layout none %}{% block x %}y{% endblock %}',
];

/** Layouts the templates above extend. */
const LAYOUTS = {
  page: '<h1>{{ title }}</h1>{% block main %}default main {{ n }}{% endblock %}|{% block side %}default side{% endblock %}|{% block %}{% endblock %}',
  mid: '{% layout "page" %}{% block main %}mid main{% endblock %}{% block side %}mid side {{ block.super }}{% endblock %}',
};

function scope(): Record<string, unknown> {
  return {
    a: { b: 1 },
    list: [1, 2, 3],
    s: 'hello <world> & "you"',
    n: 3,
    html: '<b>bold</b>',
    obj: { k: 'v', n: 1 },
    date: '2025-07-04T12:30:00Z',
    drop: new Counting(),
  };
}

function environments(options: ConstructorParameters<typeof Liquid>[0] = {}) {
  const base = {
    outputEscape: 'escape',
    ownPropertyOnly: true,
    timezoneOffset: 0,
    templates: LAYOUTS,
  } as const;
  const plain = new Liquid({ ...base, ...options });
  const fast = new Liquid({ ...base, ...options });
  expect(installSyncRender(fast)).toBe(true);
  return { plain, fast };
}

function outcome(liquid: Liquid, source: string, data: Record<string, unknown>, sync: boolean) {
  try {
    const html = sync ? liquid.parseAndRenderSync(source, data) : liquid.parseAndRender(source, data);
    return { html };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

describe('installSyncRender', () => {
  it('renders what liquidjs renders, reading the same keys of drops', () => {
    const { plain, fast } = environments();
    for (const source of TEMPLATES) {
      const a = scope();
      const b = scope();
      expect(outcome(fast, source, b, true), source).toEqual(outcome(plain, source, a, true));
      expect((b.drop as Counting).reads, source).toEqual((a.drop as Counting).reads);
    }
  });

  it('keeps liquidjs errors, strict variables and lenient `default`', () => {
    for (const options of [{ strictVariables: true }, { strictVariables: true, lenientIf: true }, {}]) {
      const { plain, fast } = environments(options);
      for (const source of [
        ...TEMPLATES,
        '{{ missing | default: "d" }}',
        '{{ a.b.c.d }}',
        '{{ s | nosuchfilter }}',
        '{{ list | at_least }}',
        '{% for x in list %}{{ x | divided_by: 0 }}{% endfor %}',
      ]) {
        expect(outcome(fast, source, scope(), true), `${source} ${JSON.stringify(options)}`).toEqual(
          outcome(plain, source, scope(), true),
        );
      }
    }
  });

  it('renders a template parsed once alike with every scope (constant and computed properties)', () => {
    const { plain, fast } = environments();
    const source =
      '{{ a.b }}|{{ a["b"] }}|{{ list[0] }}|{{ list[i] }}|{{ obj[k] }}|{{ obj[keys[i]] }}|{{ list[a.b] }}|{{ nil.x }}|{{ (1..3).last }}|{{ drop[k] }}';
    const fastTemplates = fast.parse(source);
    const plainTemplates = plain.parse(source);
    for (const [i, k] of [
      [0, 'k'],
      [1, 'n'],
      [2, 'missing'],
      [0, 'n'],
    ] as const) {
      const a: Record<string, unknown> = { ...scope(), i, k, keys: ['k', 'n', 'x'] };
      const b: Record<string, unknown> = { ...scope(), i, k, keys: ['k', 'n', 'x'] };
      expect(fast.renderSync(fastTemplates, b), JSON.stringify({ i, k })).toBe(
        plain.renderSync(plainTemplates, a),
      );
      expect((b.drop as Counting).reads).toEqual((a.drop as Counting).reads);
    }
  });

  it('leaves asynchronous renders to liquidjs (same output)', async () => {
    const { plain, fast } = environments();
    for (const source of TEMPLATES) {
      const a = outcome(plain, source, scope(), false);
      const b = outcome(fast, source, scope(), false);
      expect(await Promise.resolve(b.html).catch(String), source).toEqual(
        await Promise.resolve(a.html).catch(String),
      );
    }
  });

  it('stops a looping template at the render time limit', () => {
    const { fast } = environments({ renderLimit: 50 });
    const source = '{% for i in (1..10000) %}{% for j in (1..10000) %}{{ j }}{% endfor %}{% endfor %}';
    expect(() => fast.parseAndRenderSync(source, {})).toThrow(/template render limit exceeded/);
  });

  it("gives a filter the render's own context as `this`, in loops, partials and later renders", () => {
    const { plain, fast } = environments({
      templates: { ...LAYOUTS, part: '{% for y in list %}{{ y | whose }}{% endfor %}' },
    });
    for (const liquid of [plain, fast]) {
      liquid.registerFilter(
        'whose',
        function (this: { context: { getSync(path: string[]): unknown } }, v: unknown) {
          return `${String(this.context.getSync(['who']))}${String(v)};`;
        },
      );
    }
    const source =
      '{% for x in list %}{{ x | whose }}{% endfor %}{% render "part", list: list, who: "inner" %}{{ 0 | whose }}';
    const parsedFast = fast.parse(source);
    const parsedPlain = plain.parse(source);
    for (const who of ['first', 'second', 'third']) {
      const expected = plain.renderSync(parsedPlain, { who, list: [1, 2] });
      expect(expected).toBe(`${who}1;${who}2;inner1;inner2;${who}0;`);
      expect(fast.renderSync(parsedFast, { who, list: [1, 2] })).toBe(expected);
    }
  });

  it('fails an output the way liquidjs does (the page, the template line)', () => {
    const { plain, fast } = environments();
    const source = 'line one\n{{ s | slice: "x" | nosuch }}';
    expect(outcome(fast, source, scope(), true)).toEqual(outcome(plain, source, scope(), true));
    const failing = '{{ list | sort: 1 | first | plus: nosuch.thing }}';
    expect(outcome(fast, failing, scope(), true)).toEqual(outcome(plain, failing, scope(), true));
  });
});
