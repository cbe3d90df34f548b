// The second bench shape ("deep", BENCH_SHAPE=deep): the same content as the bench site
// (generateContent) under other templates: a three-level layout chain (page → article →
// section → base), many partials per page (header, footer, a sidebar of the 10 latest posts on
// every page, byline, tag pills, cards made of link and date partials), and heavy listing pages
// (every post of an author, about 500 a page; up to 200 posts a tag; an archive of 50 a page).
// As a Trellis snapshot and as an equivalent Eleventy project with the same URLs and page text.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trellisSnapshot, writeEleventyConfig } from './generate-site.mjs';

export const DEEP_PAGE_SIZE = 50;
const TAG_LIMIT = 200;
const LATEST = 10;

const TRELLIS_TEMPLATES = {
  _base: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ page.title }} · {{ site.name }}</title></head>
<body>{% render '_header', site: site %}
<main>{% block main %}{% endblock %}</main>
{% render '_footer', site: site %}</body></html>
`,
  _section: `{% layout '_base' %}{% block main %}<div class="section">{% render '_sidebar' %}<div class="content">{% block content %}{% endblock %}</div></div>{% endblock %}`,
  _article: `{% layout '_section' %}{% block content %}<article class="post">{% block article %}{% endblock %}</article>{% endblock %}`,
  _header: `<header><a class="brand" href="/">{{ site.name }}</a><nav><a href="/">Home</a> <a href="/archive/">Archive</a></nav></header>`,
  _footer: `<footer><p>{{ site.name }}: a generated site.</p></footer>`,
  _sidebar: `{% list 'post' sort: '-date', limit: ${LATEST} as latest %}<aside><h2>Latest</h2><ul>{% for post in latest %}{% render '_card', post: post %}{% endfor %}</ul></aside>`,
  _card: `<li>{% render '_link', post: post %} {% render '_date', date: post.date %}</li>`,
  _link: `<a href="{{ post.url }}">{{ post.title }}</a>`,
  _date: `<time>{{ date | date: '%Y-%m-%d' }}</time>`,
  _tag: `<li class="tag"><a href="{{ tag.url }}">{{ tag.name }}</a></li>`,
  _byline: `<p class="byline">{% render '_date', date: post.date %}{% for a in authors %} by <a href="{{ a.url }}">{{ a.name }}</a>{% endfor %}</p>`,
  post: `{% layout '_article' %}{% block article %}<h1>{{ item.title }}</h1>
{% traverse item 'WRITTEN_BY' as authors %}{% render '_byline', post: item, authors: authors %}
<div class="body">{{ item.body | markdown }}</div>
{% traverse item 'TAGGED' as tags %}<ul class="tags">{% for tag in tags %}{% render '_tag', tag: tag %}{% endfor %}</ul>
{% traverse item 'RELATED' limit: 5 as related %}<h2>Related</h2><ul>{% for post in related %}{% render '_card', post: post %}{% endfor %}</ul>{% endblock %}`,
  tag: `{% layout '_section' %}{% block content %}<h1>{{ item.name }}</h1>
{% traverse item 'TAGGED' direction: 'in', limit: ${TAG_LIMIT} as posts %}<ul>{% for post in posts %}{% render '_card', post: post %}{% endfor %}</ul>{% endblock %}`,
  author: `{% layout '_section' %}{% block content %}<h1>{{ item.name }}</h1>
{% traverse item 'WRITTEN_BY' direction: 'in', limit: 1000 as posts %}<p>{{ posts.size }} posts</p><ul>{% for post in posts %}{% render '_card', post: post %}{% endfor %}</ul>{% endblock %}`,
  home: `{% layout '_section' %}{% block content %}<h1>{{ site.name }}</h1>
{% list 'post' sort: '-date', limit: 20, offset: ${LATEST} as more %}<ul>{% for post in more %}{% render '_card', post: post %}{% endfor %}</ul>{% endblock %}`,
  archive: `{% layout '_section' %}{% block content %}<h1>Archive, page {{ pagination.page }} of {{ pagination.pages }}</h1>
<ul>{% for post in pagination.items %}{% render '_card', post: post %}{% endfor %}</ul>
{% if pagination.previous %}<a href="{{ pagination.previous }}">Newer</a>{% endif %} {% if pagination.next %}<a href="{{ pagination.next }}">Older</a>{% endif %}{% endblock %}`,
};

/** The Trellis snapshot of the content with the deep shape's templates, routes and author pages. */
export function trellisDeepSnapshot(content) {
  const snapshot = trellisSnapshot(content);
  snapshot.site = { ...snapshot.site, id: 'site:bench-deep', name: 'Bench deep', slug: 'bench-deep' };
  snapshot.types = snapshot.types.map((type) =>
    type.name === 'author' ? { ...type, listingOnly: false, routePattern: '/authors/{slug}/' } : type,
  );
  const bound = new Set(['post', 'tag', 'author']);
  snapshot.templates = Object.entries(TRELLIS_TEMPLATES).map(([name, content]) => ({
    name,
    content,
    boundType: bound.has(name) ? name : '',
    enabled: true,
    version: 1,
  }));
  snapshot.routes = [
    { slug: 'home', path: '/', template: 'home', title: 'Home' },
    {
      slug: 'archive',
      path: '/archive/',
      template: 'archive',
      title: 'Archive',
      paginate: { type: 'post', size: DEEP_PAGE_SIZE, sort: '-date' },
    },
  ];
  return snapshot;
}

/** Writes the Eleventy 3 project of the deep shape (`liquidCache: false`: Eleventy's default). */
export function writeEleventyDeepProject(content, dir, { liquidCache = true } = {}) {
  const { posts, tags, authors } = content;
  rmSync(dir, { recursive: true, force: true });
  const src = join(dir, 'src');
  mkdirSync(join(src, '_data'), { recursive: true });
  mkdirSync(join(src, '_includes'), { recursive: true });
  const url = (post) => `/posts/${post.slug}/`;
  const card = (post) => ({ url: url(post), title: post.title, date: post.date });
  const authorOf = (post) => ({
    name: authors[post.author].name,
    url: `/authors/${authors[post.author].slug}/`,
  });
  const postData = posts.map((post) => ({
    slug: post.slug,
    title: post.title,
    date: post.date,
    body: post.body,
    authors: [authorOf(post)],
    tags: post.tags.map((t) => ({ name: tags[t].name, url: `/tags/${tags[t].slug}/` })),
    related: post.related.slice(0, 5).map((r) => card(posts[r])),
  }));
  // `{% list %}` orders by date, then id: ids are `post:post-<n>`, compared as text
  const byDate = [...posts].sort((a, b) =>
    a.date < b.date ? 1 : a.date > b.date ? -1 : `post:${a.slug}` < `post:${b.slug}` ? -1 : 1,
  );
  const tagData = tags.map((tag, t) => ({
    slug: tag.slug,
    name: tag.name,
    posts: posts
      .filter((p) => p.tags.includes(t))
      .slice(0, TAG_LIMIT)
      .map(card),
  }));
  const authorData = authors.map((author, a) => ({
    slug: author.slug,
    name: author.name,
    posts: posts.filter((p) => p.author === a).map(card),
  }));
  const data = (name, value) => writeFileSync(join(src, '_data', `${name}.json`), JSON.stringify(value));
  data('posts', postData);
  data('archive', byDate.map(card));
  data('latest', byDate.slice(0, LATEST).map(card));
  data('more', byDate.slice(LATEST, LATEST + 20).map(card));
  data('tags', tagData);
  data('authors', authorData);
  data('site', { name: 'Bench deep' });
  const include = (name, text) => writeFileSync(join(src, '_includes', name), text);
  include(
    'base.liquid',
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }} · {{ site.name }}</title></head>
<body>{% render 'header.liquid', site: site %}
<main>{{ content }}</main>
{% render 'footer.liquid', site: site %}</body></html>
`,
  );
  include(
    'section.liquid',
    `---
layout: base.liquid
---
<div class="section">{% render 'sidebar.liquid', latest: latest %}<div class="content">{{ content }}</div></div>`,
  );
  include(
    'article.liquid',
    `---
layout: section.liquid
---
<article class="post">{{ content }}</article>`,
  );
  include(
    'header.liquid',
    `<header><a class="brand" href="/">{{ site.name }}</a><nav><a href="/">Home</a> <a href="/archive/">Archive</a></nav></header>`,
  );
  include('footer.liquid', `<footer><p>{{ site.name }}: a generated site.</p></footer>`);
  include(
    'sidebar.liquid',
    `<aside><h2>Latest</h2><ul>{% for post in latest %}{% render 'card.liquid', post: post %}{% endfor %}</ul></aside>`,
  );
  include(
    'card.liquid',
    `<li>{% render 'link.liquid', post: post %} {% render 'date.liquid', date: post.date %}</li>`,
  );
  include('link.liquid', `<a href="{{ post.url }}">{{ post.title }}</a>`);
  include('date.liquid', `<time>{{ date | date: '%Y-%m-%d' }}</time>`);
  include('tag.liquid', `<li class="tag"><a href="{{ tag.url }}">{{ tag.name }}</a></li>`);
  include(
    'byline.liquid',
    `<p class="byline">{% render 'date.liquid', date: post.date %}{% for a in authors %} by <a href="{{ a.url }}">{{ a.name }}</a>{% endfor %}</p>`,
  );
  const page = (name, text) => writeFileSync(join(src, name), text);
  page(
    'post.liquid',
    `---
pagination:
  data: posts
  size: 1
  alias: post
permalink: "/posts/{{ post.slug }}/"
layout: article.liquid
eleventyComputed:
  title: "{{ post.title }}"
---
<h1>{{ post.title }}</h1>
{% render 'byline.liquid', post: post, authors: post.authors %}
<div class="body">{{ post.body | markdown }}</div>
<ul class="tags">{% for tag in post.tags %}{% render 'tag.liquid', tag: tag %}{% endfor %}</ul>
<h2>Related</h2><ul>{% for rel in post.related %}{% render 'card.liquid', post: rel %}{% endfor %}</ul>`,
  );
  page(
    'tag.liquid',
    `---
pagination:
  data: tags
  size: 1
  alias: tag
permalink: "/tags/{{ tag.slug }}/"
layout: section.liquid
eleventyComputed:
  title: "{{ tag.name }}"
---
<h1>{{ tag.name }}</h1>
<ul>{% for p in tag.posts %}{% render 'card.liquid', post: p %}{% endfor %}</ul>`,
  );
  page(
    'author.liquid',
    `---
pagination:
  data: authors
  size: 1
  alias: author
permalink: "/authors/{{ author.slug }}/"
layout: section.liquid
eleventyComputed:
  title: "{{ author.name }}"
---
<h1>{{ author.name }}</h1>
<p>{{ author.posts.size }} posts</p><ul>{% for p in author.posts %}{% render 'card.liquid', post: p %}{% endfor %}</ul>`,
  );
  page(
    'archive.liquid',
    `---
pagination:
  data: archive
  size: ${DEEP_PAGE_SIZE}
  alias: page_posts
permalink: "/archive/{% if pagination.pageNumber > 0 %}page/{{ pagination.pageNumber | plus: 1 }}/{% endif %}"
layout: section.liquid
title: Archive
---
<h1>Archive, page {{ pagination.pageNumber | plus: 1 }} of {{ pagination.pages.length }}</h1>
<ul>{% for p in page_posts %}{% render 'card.liquid', post: p %}{% endfor %}</ul>
{% if pagination.href.previous %}<a href="{{ pagination.href.previous }}">Newer</a>{% endif %} {% if pagination.href.next %}<a href="{{ pagination.href.next }}">Older</a>{% endif %}`,
  );
  page(
    'index.liquid',
    `---
layout: section.liquid
title: Home
---
<h1>{{ site.name }}</h1>
<ul>{% for p in more %}{% render 'card.liquid', post: p %}{% endfor %}</ul>`,
  );
  writeEleventyConfig(dir, liquidCache);
}
