import type { StarterKit } from '@trelliscms/core';
/** The starter kits of docs/api-spec.md §4 POST /sites. */

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

/** What a starter kit puts into a new site's graph. */
export interface StarterKitContents {
  types: StarterType[];
  templates: StarterTemplate[];
}

const layout = (body: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{{ item.fields.title | default: item.fields.name | default: site.name }}</title>
  <style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.6}</style>
</head>
<body>
  <header><a href="/">{{ site.name }}</a></header>
  <main>
${body}
  </main>
</body>
</html>
`;

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
    { name: 'tags', type: 'stringlist' },
    { name: 'cover', type: 'image' },
  ],
  relationships: [{ name: 'author', edgeLabel: 'WRITTEN_BY', target: 'author', kind: 'many-to-one' }],
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
    { name: 'hero', type: 'image' },
    { name: 'gallery', type: 'stringlist' },
    { name: 'featured', type: 'boolean', default: false },
  ],
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
    { name: 'content', type: 'markdown', required: true },
  ],
  relationships: [{ name: 'next', edgeLabel: 'NEXT', target: 'doc', kind: 'one-to-one' }],
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
    { name: 'content', type: 'markdown' },
  ],
  routePattern: '/changelog/{release}/',
  icon: 'tag',
};

const itemTemplate = (name: string, boundType: string, body: string): StarterTemplate => ({
  name,
  boundType,
  content: layout(body),
});

const wildcard = itemTemplate(
  'default',
  '',
  `    <article>
      <h1>{{ item.fields.title | default: item.fields.name }}</h1>
      {{ item.fields.content | markdown }}
    </article>`,
);

/** The content types and templates each starter kit seeds (docs/api-spec.md §4 POST /sites `starterKit`). */
export const STARTER_KITS: Readonly<Record<StarterKit, StarterKitContents>> = {
  none: { types: [], templates: [] },
  author: {
    types: [page, author, post],
    templates: [
      wildcard,
      itemTemplate(
        'post',
        'post',
        `    <article>
      <h1>{{ item.fields.title }}</h1>
      {% if item.fields.publishDate %}<time datetime="{{ item.fields.publishDate }}">{{ item.fields.publishDate | date: "%B %-d, %Y" }}</time>{% endif %}
      {{ item.fields.content | markdown }}
      {% if item.fields.tags %}<ul class="tags">{% for tag in item.fields.tags %}<li>{{ tag }}</li>{% endfor %}</ul>{% endif %}
    </article>`,
      ),
      itemTemplate(
        'author',
        'author',
        `    <h1>{{ item.fields.name }}</h1>
    {{ item.fields.bio | markdown }}`,
      ),
    ],
  },
  designer: {
    types: [page, project],
    templates: [
      wildcard,
      itemTemplate(
        'project',
        'project',
        `    <article class="project">
      {% if item.fields.hero %}<img src="{{ item.fields.hero }}" alt="{{ item.fields.title }}">{% endif %}
      <h1>{{ item.fields.title }}</h1>
      <p>{{ item.fields.client }}{% if item.fields.year %} · {{ item.fields.year }}{% endif %}</p>
      <p>{{ item.fields.summary }}</p>
      {% for image in item.fields.gallery %}<img src="{{ image }}" alt="">{% endfor %}
    </article>`,
      ),
    ],
  },
  developer: {
    types: [page, doc, changelog],
    templates: [
      wildcard,
      itemTemplate(
        'doc',
        'doc',
        `    <article class="doc">
      <p class="section">{{ item.fields.section }}</p>
      <h1>{{ item.fields.title }}</h1>
      {{ item.fields.content | markdown }}
    </article>`,
      ),
      itemTemplate(
        'release-note',
        'release-note',
        `    <h1>{{ item.fields.release }}</h1>
    <time>{{ item.fields.date }}</time>
    {{ item.fields.content | markdown }}`,
      ),
    ],
  },
};
