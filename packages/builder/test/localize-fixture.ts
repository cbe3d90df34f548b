import type { Snapshot } from '../src/snapshot/types';

/**
 * Makes the blog fixture a site in English (default), French and Canadian French (falling back
 * to French): posts at `/{locale}/blog/{slug}/` with translatable title, body and slug, a home
 * page per locale at `/{locale}/`, UI strings for the `t` filter and `hreflang` links in the
 * layout, sections at `/{locale}/{parent.slug}/{slug}/`. French has a title and slug for "Hello
 * world" and a title for "Graph Gardening"; Canadian French has only a body for "Hello world".
 */
export function localizeBlog(snapshot: Snapshot): void {
  snapshot.locales = [
    { code: 'en', name: 'English', default: true },
    { code: 'fr', name: 'Français' },
    { code: 'fr-CA', name: 'Français (Canada)', fallback: 'fr' },
  ];
  snapshot.translations = [
    { locale: 'en', entries: { 'nav.home': 'Home', 'nav.blog': 'Blog' } },
    { locale: 'fr', entries: { 'nav.home': 'Accueil' } },
  ];
  const post = snapshot.types.find((type) => type.name === 'post')!;
  post.routePattern = '/{locale}/blog/{slug}/';
  post.fields = [
    ...post.fields.map((field) =>
      field.name === 'title' || field.name === 'body' ? { ...field, translatable: true } : field,
    ),
    { name: 'slug', type: 'string', translatable: true },
  ];
  // sections live under their page in each locale: a page's French slug moves its French sections
  const page = snapshot.types.find((type) => type.name === 'page')!;
  page.fields = [...page.fields, { name: 'slug', type: 'string', translatable: true }];
  snapshot.types.find((type) => type.name === 'section')!.routePattern = '/{locale}/{parent.slug}/{slug}/';
  const item = (id: string) => snapshot.items.find((candidate) => candidate.id === id)!;
  item('post:hello-world').translations = {
    fr: { title: 'Bonjour le monde', slug: 'bonjour-le-monde' },
    'fr-CA': { body: 'Allô, le monde' },
  };
  item('post:graph-gardening').translations = { fr: { title: 'Jardinage de graphes' } };
  snapshot.routes = [
    ...(snapshot.routes ?? []),
    { slug: 'home-localized', path: '/{locale}/', template: 'home' },
  ];
  for (const template of snapshot.templates) {
    if (template.name === '_layout') {
      template.content = template.content
        .replace('<html lang="en">', '<html lang="{{ page.locale }}">')
        .replace('</title>', '</title>\n{% hreflang %}')
        .replace('<main>', '<p class="nav">{{ "nav.home" | t }} · {{ "nav.blog" | t }}</p>\n<main>');
    }
  }
}
