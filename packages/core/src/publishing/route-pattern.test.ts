import { describe, expect, it } from 'vitest';
import { itemSlug, normalizeRoute, parentRelationship, resolveRoute } from './route-pattern';

const post = {
  id: 'post:hello',
  type: 'post',
  fields: { title: 'Hello', year: 2026, category: 'News Today' },
};
const parent = { id: 'page:docs', type: 'page', fields: { slug: 'documentation', area: 'guides' } };

describe('resolveRoute', () => {
  it('falls back to /<type>/<slug>/ when the pattern is null or empty', () => {
    expect(resolveRoute({ pattern: null, item: post })).toEqual({ path: '/post/hello/', missing: [] });
    expect(resolveRoute({ pattern: '  ', item: post }).path).toBe('/post/hello/');
  });

  it('fills {slug}, {<field>} and literals', () => {
    expect(resolveRoute({ pattern: '/blog/{year}/{slug}', item: post }).path).toBe('/blog/2026/hello/');
    expect(resolveRoute({ pattern: '/c/{category}/', item: post }).path).toBe('/c/News-Today/');
  });

  it('fills {parent.slug} and {parent.<field>}, the parent slug field taking precedence over its id', () => {
    expect(resolveRoute({ pattern: '/{parent.slug}/{parent.area}/{slug}/', item: post, parent }).path).toBe(
      '/documentation/guides/hello/',
    );
  });

  it('lists placeholders without a value', () => {
    expect(resolveRoute({ pattern: '/{parent.slug}/{slug}/', item: post, parent: null })).toEqual({
      path: '/hello/',
      missing: ['parent.slug'],
    });
    expect(resolveRoute({ pattern: '/{nope}/{slug}/', item: post }).missing).toEqual(['nope']);
  });

  it('keeps a value inside one path segment', () => {
    const sneaky = { id: 'post:x', type: 'post', fields: { where: '../../etc/passwd' } };
    expect(resolveRoute({ pattern: '/{where}/', item: sneaky }).path).toBe('/..%2F..%2Fetc%2Fpasswd/');
  });
});

describe('normalizeRoute and itemSlug', () => {
  it('normalizes slashes and dot segments', () => {
    expect(normalizeRoute('a//b/./../c')).toBe('/a/b/c/');
    expect(normalizeRoute('')).toBe('/');
  });

  it('reads the slug field first, then the id', () => {
    expect(itemSlug(post)).toBe('hello');
    expect(itemSlug(parent)).toBe('documentation');
  });
});

describe('parentRelationship', () => {
  it('prefers a relationship named parent, then the first many-to-one', () => {
    expect(
      parentRelationship([
        { name: 'author', edgeLabel: 'BY', kind: 'many-to-one' },
        { name: 'parent', edgeLabel: 'CHILD_OF', kind: 'many-to-many' },
      ])?.name,
    ).toBe('parent');
    expect(
      parentRelationship([
        { name: 'tags', edgeLabel: 'TAGGED', kind: 'many-to-many' },
        { name: 'section', edgeLabel: 'IN', kind: 'many-to-one' },
      ])?.name,
    ).toBe('section');
    expect(parentRelationship([{ name: 'tags', edgeLabel: 'TAGGED', kind: 'many-to-many' }])).toBeNull();
    expect(parentRelationship(undefined)).toBeNull();
  });
});
