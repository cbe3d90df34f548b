import type { StarterKit } from '@trelliscms/core';
import { KIT_ITEMS } from './starter-kit-content';
import { kitPage, sharedTemplates } from './starter-kit-templates';

/**
 * The starter kits of docs/api-spec.md §4 POST /sites: each seeds content types, templates,
 * routes and sample content that build into a complete site (home, paginated listings, tag and
 * author pages, an Atom feed, search, a 404 page; see docs/starter-kits.md).
 */

/** A content type a starter kit seeds (the shape of POST /types). */
export interface StarterType {
  name: string;
  label: string;
  nodeLabel: string;
  keyField: string;
  fields: Array<{
    name: string;
    type: string;
    required?: boolean;
    unique?: boolean;
    values?: string[];
    maxLength?: number;
    default?: unknown;
    target?: string;
  }>;
  relationships?: Array<{ name: string; edgeLabel: string; target: string; kind?: string }>;
  routePattern?: string | null;
  emitPages?: boolean;
  icon?: string | null;
  description?: string;
}

/** A template a starter kit seeds (the shape of POST /templates). */
export interface StarterTemplate {
  name: string;
  /** A content type name, or '' for a wildcard template. */
  boundType: string;
  content: string;
}

/** An item a starter kit seeds (the shape of POST /content/{type}). */
export interface StarterItem {
  type: string;
  fields: Record<string, unknown>;
  relationships?: Record<string, string | string[]>;
}

/** A route a starter kit seeds (the shape of POST /routes). */
export interface StarterRoute {
  slug: string;
  path: string;
  kind?: 'page' | 'listing';
  title?: string;
  template: string;
  paginate?: { type: string; size?: number; sort?: string; where?: string };
  data?: Record<string, unknown>;
}

/** What a starter kit puts into a new site's graph. */
export interface StarterKitContents {
  types: StarterType[];
  templates: StarterTemplate[];
  /** sample content, in an order where every relationship target comes first */
  items: StarterItem[];
  routes: StarterRoute[];
}

const page: StarterType = {
  name: 'page',
  label: 'Page',
  nodeLabel: 'Page',
  keyField: 'slug',
  fields: [
    { name: 'title', type: 'string', required: true, maxLength: 200 },
    { name: 'slug', type: 'string', required: true, unique: true, maxLength: 120 },
    { name: 'content', type: 'markdown' },
    { name: 'seoDescription', type: 'text', maxLength: 300 },
  ],
  routePattern: '/{slug}/',
  icon: 'file',
  description: 'A stand-alone page such as About or Contact.',
};

const author: StarterType = {
  name: 'author',
  label: 'Author',
  nodeLabel: 'Author',
  keyField: 'slug',
  fields: [
    { name: 'name', type: 'string', required: true, maxLength: 200 },
    { name: 'slug', type: 'string', required: true, unique: true, maxLength: 120 },
    { name: 'bio', type: 'markdown' },
    { name: 'avatar', type: 'image' },
  ],
  routePattern: '/authors/{slug}/',
  icon: 'user',
};

const tag: StarterType = {
  name: 'tag',
  label: 'Tag',
  nodeLabel: 'Tag',
  keyField: 'slug',
  fields: [
    { name: 'name', type: 'string', required: true, maxLength: 80 },
    { name: 'slug', type: 'string', required: true, unique: true, maxLength: 80 },
    { name: 'description', type: 'text', maxLength: 300 },
  ],
  routePattern: '/tags/{slug}/',
  icon: 'tag',
  description: 'A topic; its page lists everything tagged with it.',
};

/** The relationships every kit's main type has: one author, any number of tags. */
const authorAndTags = [
  { name: 'author', edgeLabel: 'WRITTEN_BY', target: 'author', kind: 'many-to-one' },
  { name: 'tags', edgeLabel: 'TAGGED', target: 'tag', kind: 'many-to-many' },
];

const post: StarterType = {
  name: 'post',
  label: 'Blog post',
  nodeLabel: 'Post',
  keyField: 'slug',
  fields: [
    { name: 'title', type: 'string', required: true, maxLength: 200 },
    { name: 'slug', type: 'string', required: true, unique: true, maxLength: 120 },
    { name: 'publishDate', type: 'datetime' },
    { name: 'excerpt', type: 'text', maxLength: 500 },
    { name: 'content', type: 'markdown', required: true },
    { name: 'cover', type: 'image' },
  ],
  relationships: authorAndTags,
  routePattern: '/blog/{slug}/',
  icon: 'pencil',
};

const project: StarterType = {
  name: 'project',
  label: 'Portfolio project',
  nodeLabel: 'Project',
  keyField: 'slug',
  fields: [
    { name: 'title', type: 'string', required: true, maxLength: 200 },
    { name: 'slug', type: 'string', required: true, unique: true, maxLength: 120 },
    { name: 'client', type: 'string' },
    { name: 'year', type: 'number' },
    { name: 'summary', type: 'text', maxLength: 500 },
    { name: 'content', type: 'markdown' },
    { name: 'hero', type: 'image' },
    { name: 'gallery', type: 'stringlist' },
    { name: 'featured', type: 'boolean', default: false },
  ],
  relationships: authorAndTags,
  routePattern: '/work/{slug}/',
  icon: 'image',
};

const doc: StarterType = {
  name: 'doc',
  label: 'Documentation page',
  nodeLabel: 'Doc',
  keyField: 'slug',
  fields: [
    { name: 'title', type: 'string', required: true, maxLength: 200 },
    { name: 'slug', type: 'string', required: true, unique: true, maxLength: 120 },
    { name: 'section', type: 'enum', values: ['guide', 'reference', 'tutorial'], default: 'guide' },
    { name: 'order', type: 'number' },
    { name: 'excerpt', type: 'text', maxLength: 500 },
    { name: 'content', type: 'markdown', required: true },
  ],
  relationships: [{ name: 'next', edgeLabel: 'NEXT', target: 'doc', kind: 'one-to-one' }, ...authorAndTags],
  routePattern: '/docs/{section}/{slug}/',
  icon: 'book',
};

const changelog: StarterType = {
  name: 'release-note',
  label: 'Release note',
  nodeLabel: 'ReleaseNote',
  keyField: 'release',
  fields: [
    { name: 'release', type: 'string', required: true, unique: true, maxLength: 40 },
    { name: 'date', type: 'date', required: true },
    { name: 'excerpt', type: 'text', maxLength: 500 },
    { name: 'content', type: 'markdown' },
  ],
  routePattern: '/changelog/{release}/',
  icon: 'tag',
};

const template = (name: string, boundType: string, body: string): StarterTemplate => ({
  name,
  boundType,
  content: kitPage(body),
});

const BYLINE_AND_TAGS = `{% include 'partials/taglist' %}
{% include 'partials/byline' %}`;

/** Page routes every kit has: the tag index, the feed and the 404 page. */
const commonRoutes: StarterRoute[] = [
  { slug: 'tags', path: '/tags/', title: 'Tags', template: 'tags' },
  { slug: 'feed', path: '/feed.xml', title: 'Feed', template: 'feed' },
  { slug: 'not-found', path: '/404.html', title: 'Page not found', template: '404' },
];

const home = (intro: string, latest: string) =>
  template(
    'home',
    '',
    `<div class="hero"><h1>{{ site.name }}</h1><p>{{ site.description | default: site.mantra | default: "${intro}" }}</p></div>
${latest}`,
  );

const latestSection = (params: {
  type: string;
  sort: string;
  title: string;
  more: string;
  moreLabel: string;
  limit: number;
}) =>
  `<section aria-labelledby="latest-${params.type}">
<div class="section-title"><h2 id="latest-${params.type}">${params.title}</h2><a href="{{ '${params.more}' | relative_url }}">${params.moreLabel}</a></div>
{% list '${params.type}' sort: '${params.sort}', limit: ${params.limit} as latest %}
<ul class="cards">{% for entry in latest %}{% assign level = 'h3' %}{% include 'partials/card' %}{% endfor %}</ul>
</section>`;

const authorKit: StarterKitContents = {
  types: [page, author, tag, post],
  templates: [
    ...sharedTemplates({
      nav: [
        ['Home', '/'],
        ['Blog', '/blog/'],
        ['About', '/about/'],
      ],
      feedType: 'post',
      feedSort: '-publishDate',
      dateField: 'publishDate',
    }),
    home(
      'Notes, essays and news.',
      latestSection({
        type: 'post',
        sort: '-publishDate',
        title: 'Latest posts',
        more: '/blog/',
        moreLabel: 'All posts →',
        limit: 6,
      }),
    ),
    template(
      'post',
      'post',
      `<article class="prose">
<p class="meta">{% if item.publishDate %}<time datetime="{{ item.publishDate }}">{{ item.publishDate | date: "%B %-d, %Y" }}</time>{% endif %}</p>
<h1>{{ item.title }}</h1>
{% if item.cover %}<img src="{{ item.cover | media_url }}" alt="">{% endif %}
{{ item.content | markdown }}
${BYLINE_AND_TAGS}
</article>`,
    ),
  ],
  items: KIT_ITEMS.author,
  routes: [
    { slug: 'home', path: '/', title: 'Home', template: 'home' },
    {
      slug: 'blog',
      path: '/blog/',
      kind: 'listing',
      title: 'Blog',
      template: 'list',
      paginate: { type: 'post', size: 5, sort: '-publishDate' },
      data: { intro: 'Everything we have written, newest first.' },
    },
    ...commonRoutes,
  ],
};

const designerKit: StarterKitContents = {
  types: [page, author, tag, project],
  templates: [
    ...sharedTemplates({
      nav: [
        ['Home', '/'],
        ['Work', '/work/'],
        ['About', '/about/'],
      ],
      feedType: 'project',
      feedSort: '-year,title',
      dateField: null,
    }),
    home(
      'Selected work.',
      latestSection({
        type: 'project',
        sort: '-featured,-year,title',
        title: 'Selected work',
        more: '/work/',
        moreLabel: 'All projects →',
        limit: 6,
      }),
    ),
    template(
      'project',
      'project',
      `<article class="prose">
<p class="meta">{{ item.client }}{% if item.year %} · {{ item.year }}{% endif %}</p>
<h1>{{ item.title }}</h1>
{% if item.hero %}<img src="{{ item.hero | media_url }}" alt="{{ item.title }}">{% else %}<div class="card"><div class="swatch"></div></div>{% endif %}
<p class="lead">{{ item.summary }}</p>
{{ item.content | markdown }}
{% for image in item.gallery %}<img src="{{ image | media_url }}" alt="" loading="lazy">{% endfor %}
${BYLINE_AND_TAGS}
</article>`,
    ),
  ],
  items: KIT_ITEMS.designer,
  routes: [
    { slug: 'home', path: '/', title: 'Home', template: 'home' },
    {
      slug: 'work',
      path: '/work/',
      kind: 'listing',
      title: 'Work',
      template: 'list',
      paginate: { type: 'project', size: 6, sort: '-year,title' },
      data: { intro: 'Projects, newest first.' },
    },
    ...commonRoutes,
  ],
};

const developerKit: StarterKitContents = {
  types: [page, author, tag, doc, changelog],
  templates: [
    ...sharedTemplates({
      nav: [
        ['Home', '/'],
        ['Docs', '/docs/'],
        ['Changelog', '/changelog/'],
        ['About', '/about/'],
      ],
      feedType: 'release-note',
      feedSort: '-date',
      dateField: 'date',
    }),
    home(
      'Documentation and release notes.',
      `${latestSection({
        type: 'doc',
        sort: 'section,order,title',
        title: 'Documentation',
        more: '/docs/',
        moreLabel: 'All docs →',
        limit: 3,
      })}
${latestSection({
  type: 'release-note',
  sort: '-date',
  title: 'Latest releases',
  more: '/changelog/',
  moreLabel: 'Changelog →',
  limit: 3,
})}`,
    ),
    template(
      'doc',
      'doc',
      `<article class="prose">
<p class="meta">{{ item.section | capitalize }}</p>
<h1>{{ item.title }}</h1>
{{ item.content | markdown }}
{% traverse item 'NEXT' as following %}{% for next in following %}<p><a href="{{ next.url | relative_url }}" rel="next">Next: {{ next.title }} →</a></p>{% endfor %}
${BYLINE_AND_TAGS}
</article>`,
    ),
    template(
      'release-note',
      'release-note',
      `<article class="prose">
<p class="meta"><time datetime="{{ item.date }}">{{ item.date | date: "%B %-d, %Y" }}</time></p>
<h1>Release {{ item.release }}</h1>
{{ item.content | markdown }}
<p><a href="{{ '/changelog/' | relative_url }}">All releases</a></p>
</article>`,
    ),
  ],
  items: KIT_ITEMS.developer,
  routes: [
    { slug: 'home', path: '/', title: 'Home', template: 'home' },
    {
      slug: 'docs',
      path: '/docs/',
      kind: 'listing',
      title: 'Documentation',
      template: 'list',
      paginate: { type: 'doc', size: 5, sort: 'section,order,title' },
      data: { intro: 'Guides, tutorials and reference.' },
    },
    {
      slug: 'changelog',
      path: '/changelog/',
      kind: 'listing',
      title: 'Changelog',
      template: 'list',
      paginate: { type: 'release-note', size: 10, sort: '-date' },
      data: { intro: 'What changed in each release.' },
    },
    ...commonRoutes,
  ],
};

/** What each starter kit seeds (docs/api-spec.md §4 POST /sites `starterKit`; docs/starter-kits.md). */
export const STARTER_KITS: Readonly<Record<StarterKit, StarterKitContents>> = {
  none: { types: [], templates: [], items: [], routes: [] },
  author: authorKit,
  designer: designerKit,
  developer: developerKit,
};
