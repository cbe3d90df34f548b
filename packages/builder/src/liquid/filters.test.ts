import { describe, expect, it } from 'vitest';
import { fileOf, routePathOf } from '../plan/plan-artifacts';
import { mediaUrl, pageRelativeUrl, relativeUrl } from './filters';

describe('pageRelativeUrl', () => {
  it.each([
    ['/about/', '/blog/hello/', '../../about/'],
    ['/', '/blog/hello/', '../../'],
    ['/blog/', '/blog/hello/', '../'],
    ['/blog/hello/', '/blog/hello/', './'],
    ['/blog/page/2/', '/blog/', 'page/2/'],
    ['/', '/', './'],
    ['/about/', '/', 'about/'],
    ['/feed.xml', '/blog/hello/', '../../feed.xml'],
    ['/search/search.js', '/404.html', 'search/search.js'],
    ['/tags/news/#top', '/blog/x/', '../../tags/news/#top'],
    ['/blog/?q=a', '/', 'blog/?q=a'],
    ['about/', '/docs/', '../about/'],
    ['https://example.org/x', '/a/', 'https://example.org/x'],
    ['#main', '/a/', '#main'],
    ['//cdn.example.org/x.js', '/a/', '//cdn.example.org/x.js'],
  ])('%s from %s is %s', (target, from, expected) => {
    expect(pageRelativeUrl(target, from)).toBe(expected);
    // and it leads where the root-relative path does, under any base
    if (target.startsWith('/') && !target.startsWith('//')) {
      for (const base of ['https://example.org', 'http://127.0.0.1:4000/sites/blog/dev']) {
        expect(new URL(expected, `${base}${from}`).href).toBe(`${base}${target}`);
      }
    }
  });

  it('outside a page, relative_url prefixes the public URL path', () => {
    expect(relativeUrl('/a/', { publicUrl: 'https://example.org/sub' })).toBe('/sub/a/');
    expect(relativeUrl('/a/', { publicUrl: null })).toBe('/a/');
  });
});

describe('mediaUrl', () => {
  const assets = new Map([['asset:abc', '/media/assets/abc.png']]);
  it('resolves asset ids from the snapshot, and gives nothing for an unknown one', () => {
    expect(mediaUrl('asset:abc', { publicUrl: null, assets })).toBe('/media/assets/abc.png');
    expect(mediaUrl('asset:nope', { publicUrl: null, assets })).toBe('');
    expect(mediaUrl('asset:abc', { publicUrl: null, assets, mediaBaseUrl: 'https://cdn.example.org' })).toBe(
      'https://cdn.example.org/media/assets/abc.png',
    );
    expect(mediaUrl('/media/assets/abc.png', { publicUrl: null })).toBe('/media/assets/abc.png');
  });
});

describe('file routes', () => {
  it('writes a route whose path is a file name as that file, any other route as a folder', () => {
    expect(routePathOf('/feed.xml')).toBe('/feed.xml');
    expect(fileOf(routePathOf('/feed.xml'))).toBe('feed.xml');
    expect(fileOf(routePathOf('/404.html'))).toBe('404.html');
    expect(fileOf(routePathOf('/docs/robots.txt'))).toBe('docs/robots.txt');
    expect(routePathOf('/blog')).toBe('/blog/');
    expect(routePathOf('/v1.2')).toBe('/v1.2/');
    expect(routePathOf('/feed.xml/')).toBe('/feed.xml/');
    expect(fileOf(routePathOf('/'))).toBe('index.html');
  });
});
