import type { Snapshot } from '../src/snapshot/types';

/** Labels (a list field) of the blog fixture's posts, as `addAuthoring` sets them. */
export const POST_LABELS: Record<string, string[]> = {
  'post:hello-world': ['intro', 'news'],
  'post:graph-gardening': ['graphs', "rock'n'roll"],
  'post:liquid-layouts': ['news'],
  'post:draft-ideas': [],
  'post:static-speed': ['news', 'Small Talk'],
};

/**
 * Adds to the blog fixture what porting an Eleventy blog needs: a `labels` list field on posts,
 * one page set per label (`/labels/{value}/`, 2 posts a page), site collections (`authors`, and
 * `labels` grouped by value) read by a `/people/` page, and `$name` parameters in a `where`.
 */
export function addAuthoring(snapshot: Snapshot): void {
  for (const item of snapshot.items) {
    const labels = POST_LABELS[item.id];
    if (labels) item.fields = { ...item.fields, labels };
  }
  snapshot.site = {
    ...snapshot.site,
    collections: {
      authors: { type: 'author', sort: 'name' },
      labels: { type: 'post', groupBy: 'labels', sort: '-date' },
    },
  };
  snapshot.routes = [
    ...(snapshot.routes ?? []),
    {
      slug: 'labels',
      path: '/labels/{value}/',
      kind: 'listing',
      template: 'label',
      title: 'Label',
      paginate: { type: 'post', field: 'labels', size: 2, sort: '-date' },
    },
    { slug: 'people', path: '/people/', kind: 'page', template: 'people', title: 'People' },
  ];
  snapshot.templates.push(
    {
      name: 'label',
      content:
        '<h1>{{ pagination.value }}</h1><p class="pages">{{ pagination.page }}/{{ pagination.pages }} of {{ pagination.total }}</p>' +
        '<ul>{% for p in pagination.items %}<li class="p">{{ p.title }}</li>{% endfor %}</ul>' +
        '{% list \'post\' where: "labels contains $v" v: pagination.value as again %}<p class="again">{{ again_total }}</p>',
    },
    {
      name: 'people',
      content:
        '<ul>{% for a in site.collections.authors %}<li class="author">{{ a.name }}</li>{% endfor %}</ul>' +
        '<ul>{% for g in site.collections.labels %}<li class="label"><a href="/labels/{{ g.value | slugify }}/">{{ g.value }}</a> {{ g.count }}: {{ g.items.first.title }}</li>{% endfor %}</ul>',
    },
  );
}
