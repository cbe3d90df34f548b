// Generates the benchmark site deterministically: N posts with markdown bodies, 50 tags,
// 20 authors, 3 related posts each; as a Trellis snapshot and as an equivalent Eleventy project.
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const WORDS = `graph garden static build page route node edge label query index search token render template
liquid layout partial filter markdown listing archive author tag topic season river mountain forest meadow
harbor lantern copper silver amber violet crimson meadow orchard thunder whisper quartz granite cedar maple
willow falcon heron otter badger lynx coral reef tide comet nebula orbit quasar pulsar signal vector matrix
cipher kernel thread worker cache queue stream buffer socket packet header footer sidebar canvas pixel glyph
syntax grammar lexicon fable legend saga chronicle journal ledger almanac atlas compass beacon harbor bridge
tunnel tower castle village market bazaar festival lantern candle ember spark flame blaze frost glacier tundra
desert oasis canyon valley delta estuary lagoon island archipelago peninsula plateau summit ridge slope`
  .split(/\s+/)
  .filter(Boolean);

function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const TAGS = 50;
export const AUTHORS = 20;
export const PAGE_SIZE = 20;

/** The content, shared by both generators. */
export function generateContent(count, seed = 42) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const tags = Array.from({ length: TAGS }, (_, i) => ({ slug: `tag-${i}`, name: `Topic ${WORDS[i]}` }));
  const authors = Array.from({ length: AUTHORS }, (_, i) => ({
    slug: `author-${i}`,
    name: `Author ${WORDS[i + 60]}`,
  }));
  const posts = [];
  const start = Date.UTC(2015, 0, 1);
  for (let i = 0; i < count; i++) {
    const title = `${words(3)} ${i}`.replace(/^./, (c) => c.toUpperCase());
    const body = [
      `${words(40)} **${words(2)}** ${words(20)}.`,
      `## ${words(3)}\n\n${words(50)} [${words(2)}](https://example.org/${i}).`,
      `- ${words(6)}\n- ${words(6)}\n- ${words(6)}\n\n${words(30)}.`,
    ].join('\n\n');
    const date = new Date(start + Math.floor(rand() * 3650) * 86400000 + i * 1000).toISOString();
    const postTags = [
      ...new Set(Array.from({ length: 1 + Math.floor(rand() * 3) }, () => Math.floor(rand() * TAGS))),
    ];
    const related = [...new Set(Array.from({ length: 3 }, () => Math.floor(rand() * count)))].filter(
      (r) => r !== i,
    );
    posts.push({
      slug: `post-${i}`,
      title,
      date,
      body,
      tags: postTags,
      related,
      author: Math.floor(rand() * AUTHORS),
    });
  }
  return { posts, tags, authors };
}

const TRELLIS_TEMPLATES = {
  _layout: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ page.title }} · {{ site.name }}</title></head>
<body><nav><a href="/">Home</a> <a href="/posts/">All posts</a></nav>
<form data-trellis-search role="search"><input name="q" type="search"></form>
<main>{% block content %}{% endblock %}</main>
<script src="/search/search.js"></script></body></html>
`,
  _card: `<li><a href="{{ post.url }}">{{ post.title }}</a> <time>{{ post.date | date: '%Y-%m-%d' }}</time></li>`,
  post: `{% layout '_layout' %}{% block content %}<article><h1>{{ item.title }}</h1>
<p><time>{{ item.date | date: '%B %d, %Y' }}</time>{% traverse item 'WRITTEN_BY' as authors %}{% for a in authors %} by {{ a.name }}{% endfor %}</p>
<div class="body">{{ item.body | markdown }}</div>
{% traverse item 'TAGGED' as tags %}<ul class="tags">{% for tag in tags %}<li><a href="{{ tag.url }}">{{ tag.name }}</a></li>{% endfor %}</ul>
{% traverse item 'RELATED' limit: 5 as related %}<h2>Related</h2><ul>{% for post in related %}{% render '_card', post: post %}{% endfor %}</ul>
</article>{% endblock %}`,
  tag: `{% layout '_layout' %}{% block content %}<h1>{{ item.name }}</h1>
{% traverse item 'TAGGED' direction: 'in', limit: 50 as posts %}<ul>{% for post in posts %}{% render '_card', post: post %}{% endfor %}</ul>{% endblock %}`,
  home: `{% layout '_layout' %}{% block content %}<h1>{{ site.name }}</h1>
{% list 'post' sort: '-date', limit: 10 as latest %}<ul>{% for post in latest %}{% render '_card', post: post %}{% endfor %}</ul>{% endblock %}`,
  posts: `{% layout '_layout' %}{% block content %}<h1>All posts, page {{ pagination.page }} of {{ pagination.pages }}</h1>
<ul>{% for post in pagination.items %}{% render '_card', post: post %}{% endfor %}</ul>
{% if pagination.previous %}<a href="{{ pagination.previous }}">Newer</a>{% endif %} {% if pagination.next %}<a href="{{ pagination.next }}">Older</a>{% endif %}{% endblock %}`,
};

/** The Trellis snapshot of the content. */
export function trellisSnapshot(content) {
  const { posts, tags, authors } = content;
  const items = [];
  const edges = [];
  for (const tag of tags)
    items.push({
      id: `tag:${tag.slug}`,
      type: 'tag',
      fields: { name: tag.name },
      publishedEnvs: ['prod'],
      version: 1,
    });
  for (const author of authors)
    items.push({
      id: `author:${author.slug}`,
      type: 'author',
      fields: { name: author.name },
      publishedEnvs: ['prod'],
      version: 1,
    });
  for (const post of posts) {
    items.push({
      id: `post:${post.slug}`,
      type: 'post',
      fields: { title: post.title, date: post.date, body: post.body },
      publishedEnvs: ['prod'],
      version: 1,
      updatedAt: post.date,
    });
    edges.push({ from: `post:${post.slug}`, edge: 'WRITTEN_BY', to: `author:${authors[post.author].slug}` });
    for (const t of post.tags)
      edges.push({ from: `post:${post.slug}`, edge: 'TAGGED', to: `tag:${tags[t].slug}` });
    for (const r of post.related)
      edges.push({ from: `post:${post.slug}`, edge: 'RELATED', to: `post:${posts[r].slug}` });
  }
  // The server's export carries each item's content hash; so does the generated snapshot.
  for (const item of items)
    item.hash = `sha256:${createHash('sha256').update(JSON.stringify(item.fields)).digest('hex')}`;
  return {
    format: 'trellis-snapshot',
    version: 1,
    site: {
      id: 'site:bench',
      name: 'Bench',
      slug: 'bench',
      publicUrl: 'https://bench.example.org',
      searchEmission: 'bm25',
    },
    types: [
      {
        name: 'post',
        label: 'Post',
        keyField: 'title',
        routePattern: '/posts/{slug}/',
        fields: [
          { name: 'title', type: 'string' },
          { name: 'date', type: 'datetime' },
          { name: 'body', type: 'markdown' },
        ],
      },
      {
        name: 'tag',
        label: 'Tag',
        keyField: 'name',
        routePattern: '/tags/{slug}/',
        fields: [{ name: 'name', type: 'string' }],
      },
      {
        name: 'author',
        label: 'Author',
        keyField: 'name',
        listingOnly: true,
        fields: [{ name: 'name', type: 'string' }],
      },
    ],
    items,
    edges,
    templates: Object.entries(TRELLIS_TEMPLATES).map(([name, content]) => ({
      name,
      content,
      boundType: name === 'post' || name === 'tag' ? name : '',
      enabled: true,
      version: 1,
    })),
    transforms: [],
    routes: [
      { slug: 'home', path: '/', template: 'home', title: 'Home' },
      {
        slug: 'posts',
        path: '/posts/',
        template: 'posts',
        title: 'All posts',
        paginate: { type: 'post', size: PAGE_SIZE, sort: '-date' },
      },
    ],
    views: [],
    exportedAt: '2026-01-01T00:00:00Z',
  };
}

/**
 * Writes an Eleventy 3 project rendering the same pages with equivalent Liquid templates.
 * `liquidCache: false` keeps Eleventy's default (liquidjs's template cache off).
 */
export function writeEleventyProject(content, dir, { liquidCache = true } = {}) {
  const { posts, tags, authors } = content;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src', '_data'), { recursive: true });
  mkdirSync(join(dir, 'src', '_includes'), { recursive: true });
  const url = (post) => `/posts/${post.slug}/`;
  const card = (post) => ({ url: url(post), title: post.title, date: post.date });
  const postData = posts.map((post) => ({
    slug: post.slug,
    title: post.title,
    date: post.date,
    body: post.body,
    author: authors[post.author].name,
    tags: post.tags.map((t) => ({ name: tags[t].name, url: `/tags/${tags[t].slug}/` })),
    related: post.related.slice(0, 5).map((r) => card(posts[r])),
  }));
  const byDate = [...postData].sort((a, b) =>
    a.date < b.date ? 1 : a.date > b.date ? -1 : a.slug < b.slug ? -1 : 1,
  );
  const tagData = tags.map((tag, t) => ({
    slug: tag.slug,
    name: tag.name,
    posts: posts
      .filter((p) => p.tags.includes(t))
      .slice(0, 50)
      .map(card),
  }));
  writeFileSync(join(dir, 'src', '_data', 'posts.json'), JSON.stringify(postData));
  writeFileSync(join(dir, 'src', '_data', 'postsByDate.json'), JSON.stringify(byDate.map(card)));
  writeFileSync(join(dir, 'src', '_data', 'tags.json'), JSON.stringify(tagData));
  writeFileSync(join(dir, 'src', '_data', 'site.json'), JSON.stringify({ name: 'Bench' }));
  writeFileSync(
    join(dir, 'src', '_includes', 'layout.liquid'),
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }} · {{ site.name }}</title></head>
<body><nav><a href="/">Home</a> <a href="/posts/">All posts</a></nav>
<form role="search"><input name="q" type="search"></form>
<main>{{ content }}</main></body></html>
`,
  );
  writeFileSync(
    join(dir, 'src', '_includes', 'card.liquid'),
    `<li><a href="{{ post.url }}">{{ post.title }}</a> <time>{{ post.date | date: '%Y-%m-%d' }}</time></li>`,
  );
  writeFileSync(
    join(dir, 'src', 'post.liquid'),
    `---
pagination:
  data: posts
  size: 1
  alias: post
permalink: "/posts/{{ post.slug }}/"
layout: layout.liquid
eleventyComputed:
  title: "{{ post.title }}"
---
<article><h1>{{ post.title }}</h1>
<p><time>{{ post.date | date: '%B %d, %Y' }}</time> by {{ post.author }}</p>
<div class="body">{{ post.body | markdown }}</div>
<ul class="tags">{% for tag in post.tags %}<li><a href="{{ tag.url }}">{{ tag.name }}</a></li>{% endfor %}</ul>
<h2>Related</h2><ul>{% for rel in post.related %}{% render 'card.liquid', post: rel %}{% endfor %}</ul>
</article>`,
  );
  writeFileSync(
    join(dir, 'src', 'tag.liquid'),
    `---
pagination:
  data: tags
  size: 1
  alias: tag
permalink: "/tags/{{ tag.slug }}/"
layout: layout.liquid
eleventyComputed:
  title: "{{ tag.name }}"
---
<h1>{{ tag.name }}</h1>
<ul>{% for p in tag.posts %}{% render 'card.liquid', post: p %}{% endfor %}</ul>`,
  );
  writeFileSync(
    join(dir, 'src', 'posts.liquid'),
    `---
pagination:
  data: postsByDate
  size: ${PAGE_SIZE}
  alias: page_posts
permalink: "/posts/{% if pagination.pageNumber > 0 %}page/{{ pagination.pageNumber | plus: 1 }}/{% endif %}"
layout: layout.liquid
title: All posts
---
<h1>All posts, page {{ pagination.pageNumber | plus: 1 }} of {{ pagination.pages.length }}</h1>
<ul>{% for p in page_posts %}{% render 'card.liquid', post: p %}{% endfor %}</ul>
{% if pagination.href.previous %}<a href="{{ pagination.href.previous }}">Newer</a>{% endif %} {% if pagination.href.next %}<a href="{{ pagination.href.next }}">Older</a>{% endif %}`,
  );
  writeFileSync(
    join(dir, 'src', 'index.liquid'),
    `---
layout: layout.liquid
title: Home
---
<h1>{{ site.name }}</h1>
<ul>{% for p in postsByDate limit: 10 %}{% render 'card.liquid', post: p %}{% endfor %}</ul>`,
  );
  writeEleventyConfig(dir, liquidCache);
}

/**
 * The Eleventy configuration both bench shapes use: the `markdown` filter as marked +
 * sanitize-html (the builder's own copies), and liquidjs's template cache on or off.
 */
export function writeEleventyConfig(dir, liquidCache) {
  writeFileSync(
    join(dir, 'eleventy.config.mjs'),
    `import { createRequire } from 'node:module';
const require = createRequire(${JSON.stringify(new URL('../packages/builder/package.json', import.meta.url).pathname)});
const { marked } = require('marked');
const sanitizeHtml = require('sanitize-html');
export default function (eleventyConfig) {
  eleventyConfig.addFilter('markdown', (s) => sanitizeHtml(marked.parse(String(s ?? ''), { async: false })));
  // A production build parses each template once, as Trellis does. Eleventy leaves liquidjs's
  // cache off (for watch mode): every {% render %} would then look the partial up again (two
  // async realpath walks, one lstat per path segment) and parse it again.
  ${liquidCache ? 'eleventyConfig.setLiquidOptions({ cache: true });' : "// Eleventy's default: no template cache"}
  return { dir: { input: 'src', output: process.env.BENCH_ELEVENTY_OUTPUT || '_site' } };
}
`,
  );
}
