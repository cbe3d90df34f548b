import { expect } from 'vitest';
import type { ContentTestSite } from './content-test-site';

/**
 * Seeds a small blog on a test site: a `post` type served at `/posts/{slug}/`, a `post`
 * template printing the title (`<h1>…</h1>`) and the markdown body, a home page listing the
 * posts, and two posts (`post:hello-world`, `post:second-post`).
 */
export async function seedBlog(site: ContentTestSite): Promise<void> {
  await site.createType({
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'title',
    routePattern: '/posts/{slug}/',
    fields: [
      { name: 'title', type: 'string', required: true },
      { name: 'body', type: 'markdown' },
    ],
  });
  const template = await site.request({
    method: 'POST',
    url: '/api/templates',
    payload: {
      name: 'post',
      boundType: 'post',
      content: '<h1>{{ item.title }}</h1>{{ item.body | markdown }}',
    },
  });
  expect(template.statusCode).toBe(201);
  const home = await site.request({
    method: 'POST',
    url: '/api/templates',
    payload: {
      name: 'home',
      content:
        "{% list 'post' sort: 'title' as posts %}{% for p in posts %}<a href=\"{{ p.url }}\">{{ p.title }}</a>{% endfor %}",
    },
  });
  expect(home.statusCode).toBe(201);
  const route = await site.request({
    method: 'POST',
    url: '/api/routes',
    payload: { slug: 'home', path: '/', kind: 'page', template: 'home' },
  });
  expect(route.statusCode).toBe(201);
  for (const title of ['Hello world', 'Second post']) {
    const created = await site.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { title, body: `About **${title}**` },
    });
    expect(created.statusCode).toBe(201);
  }
}
