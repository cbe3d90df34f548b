import type { StarterTemplate } from './starter-kits';

// The templates the starter kits share: one layout (theme colours, dark mode, responsive, a
// search box, skip link), cards, pagination, tag and author pages, an Atom feed and a 404 page.
// Every link goes through `relative_url` (relative to the page), so a site works wherever it is
// served: at its domain, under a path, or in the server's preview at /sites/<slug>/<env>/.

/** What differs between the kits' shared templates. */
export interface KitShape {
  /** the navigation: [label, site path] */
  nav: Array<[string, string]>;
  /** the content type the feed and the home page's latest list show */
  feedType: string;
  /** its sort for "latest" (list language) */
  feedSort: string;
  /** the field holding its date, if any */
  dateField: string | null;
}

const STYLE = `
:root{--primary:{{ site.theme.primary | default: '#1f6feb' }};--accent:{{ site.theme.accent | default: '#d97706' }};
--bg:#ffffff;--fg:#1b1f24;--muted:#57606a;--surface:#f6f8fa;--border:#d0d7de;--link:var(--primary);
--font:{% if site.theme.font %}"{{ site.theme.font }}",{% endif %}system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--surface:#161b22;--border:#30363d;
--link:color-mix(in srgb,var(--primary) 45%,#ffffff)}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;background:var(--bg);color:var(--fg);font:1.0625rem/1.65 var(--font)}
a{color:var(--link);text-underline-offset:.2em}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px;top:.5rem;background:var(--bg);padding:.5rem 1rem;z-index:10}
.skip:focus{left:.5rem}
.wrap{width:min(100% - 2.5rem,60rem);margin-inline:auto}
.site-header{border-top:4px solid var(--primary);border-bottom:1px solid var(--border);background:var(--surface)}
.site-header .wrap{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1.5rem;padding-block:1rem}
.brand{font-weight:700;font-size:1.25rem;color:var(--fg);text-decoration:none;margin-right:auto}
.brand span{display:block;font-weight:400;font-size:.875rem;color:var(--muted)}
.site-nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
.site-nav a{color:var(--fg);text-decoration:none;font-weight:500;padding:.25rem 0;border-bottom:2px solid transparent}
.site-nav a:hover,.site-nav a[aria-current=page]{border-bottom-color:var(--primary)}
.search{position:relative;flex:1 1 14rem;max-width:20rem}
.search input{width:100%;font:inherit;font-size:1rem;padding:.45rem .75rem;border:1px solid var(--border);border-radius:.5rem;background:var(--bg);color:var(--fg)}
.search [data-results]{position:absolute;z-index:5;left:0;right:0;margin:.25rem 0 0;padding:0;list-style:none;background:var(--bg);border:1px solid var(--border);border-radius:.5rem;box-shadow:0 8px 24px rgb(0 0 0/.15)}
.search [data-results]:empty{display:none}
.search [data-results] li{padding:.4rem .75rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
main{flex:1 0 auto;padding-block:2rem 3rem}
.lead{font-size:1.2rem;color:var(--muted)}
h1,h2,h3{line-height:1.25;letter-spacing:-.01em}
h1{font-size:clamp(1.9rem,4vw + 1rem,2.75rem);margin:.25rem 0 1rem}
.hero{padding:2.5rem 0 1.5rem;border-bottom:1px solid var(--border);margin-bottom:2rem}
.hero p{font-size:1.2rem;color:var(--muted);max-width:40rem;margin:0}
.meta{color:var(--muted);font-size:.9375rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr));gap:1.25rem;list-style:none;margin:0;padding:0}
.card{display:flex;flex-direction:column;border:1px solid var(--border);border-radius:.75rem;overflow:hidden;background:var(--surface)}
.card .swatch{height:7rem;background:linear-gradient(135deg,var(--primary),var(--accent))}
.card img{width:100%;height:10rem;object-fit:cover}
.card .body{padding:1rem 1.1rem 1.2rem;display:flex;flex-direction:column;gap:.4rem}
.card h2,.card h3{font-size:1.2rem;margin:0}
.card p{margin:0}
.card h2 a,.card h3 a{text-decoration:none}
.card h2 a:hover,.card h3 a:hover{text-decoration:underline}
.tags{display:flex;flex-wrap:wrap;gap:.4rem;list-style:none;margin:.5rem 0 0;padding:0}
.tags a{display:inline-block;font-size:.8125rem;padding:.1rem .6rem;border-radius:999px;border:1px solid var(--border);background:var(--bg);color:var(--fg);text-decoration:none}
.tags a:hover{border-color:var(--primary)}
.prose{max-width:42rem}
.prose img{max-width:100%;height:auto}
.prose pre{background:var(--surface);border:1px solid var(--border);border-radius:.5rem;padding:1rem;overflow-x:auto}
.prose code{font-size:.9em}
.pagination{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;list-style:none;padding:0;margin:2rem 0 0}
.pagination a,.pagination span{display:inline-block;min-width:2.5rem;text-align:center;padding:.35rem .75rem;border:1px solid var(--border);border-radius:.5rem;text-decoration:none}
.pagination [aria-current]{background:var(--primary);border-color:var(--primary);color:#fff}
.section-title{display:flex;justify-content:space-between;align-items:baseline;gap:1rem;margin-top:2.5rem}
.byline{display:flex;gap:1rem;align-items:center;margin:2rem 0;padding:1rem;border:1px solid var(--border);border-radius:.75rem}
.byline p{margin:0}
.avatar{flex:none;width:3rem;height:3rem;border-radius:50%;background:linear-gradient(135deg,var(--primary),var(--accent))}
.site-footer{border-top:1px solid var(--border);padding-block:1.5rem;color:var(--muted);font-size:.9375rem}
.site-footer .wrap{display:flex;flex-wrap:wrap;gap:1rem;justify-content:space-between}
@media (max-width:40rem){body{font-size:1rem}.search{max-width:none;flex-basis:100%}.hero{padding-top:1.5rem}}
`
  .trim()
  .replace(/\n/g, '');

function layout(shape: KitShape): string {
  const nav = shape.nav
    .map(
      ([label, path]) =>
        `<li><a href="{{ '${path}' | relative_url }}"{% if page.path == '${path}' %} aria-current="page"{% endif %}>${label}</a></li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{% if page.title and page.path != '/' %}{{ page.title }} · {% endif %}{{ site.name }}</title>
<meta name="description" content="{{ item.seoDescription | default: item.excerpt | default: item.summary | default: site.description | default: site.mantra }}">
<meta name="theme-color" content="{{ site.theme.primary | default: '#1f6feb' }}">
{% if page.path == '/404.html' %}<base href="{{ '/' | absolute_url }}">{% else %}<link rel="canonical" href="{{ page.path | absolute_url }}">{% endif %}
<link rel="alternate" type="application/atom+xml" title="{{ site.name }}" href="{{ '/feed.xml' | absolute_url }}">
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site-header">
<div class="wrap">
<a class="brand" href="{{ '/' | relative_url }}">{{ site.name }}{% if site.mantra != blank %}<span>{{ site.mantra }}</span>{% endif %}</a>
<nav class="site-nav" aria-label="Main"><ul>${nav}</ul></nav>
{% if site.searchEmission != 'none' %}<form class="search" data-trellis-search role="search" action="{{ '/' | relative_url }}">
<label class="visually-hidden" for="q">Search this site</label>
<input id="q" name="q" type="search" placeholder="Search…" autocomplete="off">
<ul data-results aria-live="polite" aria-label="Search results"></ul>
</form>{% endif %}
</div>
</header>
<main id="main" class="wrap">
{% block content %}{% endblock %}
</main>
<footer class="site-footer">
<div class="wrap">
<p>© {{ site.name }}</p>
<p><a href="{{ '/tags/' | relative_url }}">Tags</a> · <a href="{{ '/feed.xml' | relative_url }}">Feed</a></p>
</div>
</footer>
{% if site.searchEmission != 'none' %}<script src="{{ '/search/search.js' | relative_url }}" defer></script>{% endif %}
</body>
</html>
`;
}

/** A card for any kit item in `entry` (include it after assigning `entry` and `level`). */
function card(shape: KitShape): string {
  const date = shape.dateField
    ? `{% if entry.${shape.dateField} %}<p class="meta"><time datetime="{{ entry.${shape.dateField} }}">{{ entry.${shape.dateField} | date: '%B %-d, %Y' }}</time></p>{% endif %}`
    : '';
  return `<li class="card">
{% if entry.hero %}<img src="{{ entry.hero | media_url }}" alt="" loading="lazy">{% elsif entry.type == 'project' %}<div class="swatch"></div>{% endif %}
<div class="body">
<{{ level | default: 'h2' }}><a href="{{ entry.url | relative_url }}">{% if entry.type == 'release-note' %}Release {{ entry.release }}{% else %}{{ entry.title | default: entry.name }}{% endif %}</a></{{ level | default: 'h2' }}>
{% if entry.type == '${shape.feedType}' %}${date}{% endif %}
{% if entry.type == 'doc' %}<p class="meta">{{ entry.section | capitalize }}</p>{% endif %}
{% if entry.type == 'project' and entry.client %}<p class="meta">{{ entry.client }}{% if entry.year %} · {{ entry.year }}{% endif %}</p>{% endif %}
<p>{{ entry.excerpt | default: entry.summary | default: entry.content | markdown | strip_html | truncatewords: 24 }}</p>
</div>
</li>`;
}

const TAG_LIST = `{% traverse item 'TAGGED' as tags %}{% if tags.size > 0 %}<ul class="tags" aria-label="Tags">{% for tag in tags %}<li><a href="{{ tag.url | relative_url }}">#{{ tag.name }}</a></li>{% endfor %}</ul>{% endif %}`;

const BYLINE = `{% traverse item 'WRITTEN_BY' as authors %}{% for author in authors %}<aside class="byline" aria-label="Author"><div class="avatar" aria-hidden="true"></div><p>By <a href="{{ author.url | relative_url }}"><strong>{{ author.name }}</strong></a></p></aside>{% endfor %}`;

const PAGINATION = `{% if pagination.pages > 1 %}<nav aria-label="Pages"><ul class="pagination">
{% if pagination.previous %}<li><a href="{{ pagination.previous | relative_url }}" rel="prev">← Previous</a></li>{% endif %}
{% for href in pagination.hrefs %}<li>{% if forloop.index == pagination.page %}<span aria-current="page">{{ forloop.index }}</span>{% else %}<a href="{{ href | relative_url }}">{{ forloop.index }}</a>{% endif %}</li>{% endfor %}
{% if pagination.next %}<li><a href="{{ pagination.next | relative_url }}" rel="next">Next →</a></li>{% endif %}
</ul></nav>{% endif %}`;

/**
 * A contact form whose posts become leads of the site (docs/leads.md). It posts to `/api/leads`
 * on the page's own origin: right when the Trellis server serves the site (its preview at
 * /sites/<slug>/<env>/) or when a proxy forwards the site's /api to it; a site served elsewhere
 * changes `leads_api` to the server's public URL (https://cms.example.com/api/leads). Without
 * JavaScript the browser comes back to the page with `?sent=1`.
 */
const CONTACT_FORM = `{% assign leads_api = '/api/leads' %}<section class="contact" aria-labelledby="contact-title">
<h2 id="contact-title">Get in touch</h2>
<p class="meta" data-lead-sent hidden>Thank you, your message was sent.</p>
<form method="post" action="{{ leads_api }}">
<input type="hidden" name="site" value="{{ site.slug }}">
<input type="hidden" name="_redirect" value="?sent=1">
<p><label for="lead-name">Name</label><br><input id="lead-name" name="name" autocomplete="name" required maxlength="200"></p>
<p><label for="lead-email">Email</label><br><input id="lead-email" name="email" type="email" autocomplete="email" required maxlength="320"></p>
<p><label for="lead-message">Message</label><br><textarea id="lead-message" name="message" rows="5" required maxlength="5000"></textarea></p>
<p class="visually-hidden" aria-hidden="true"><label for="lead-website">Leave this empty</label><input id="lead-website" name="_honeypot" tabindex="-1" autocomplete="off"></p>
<p><button type="submit">Send</button></p>
</form>
<script>if(/[?&]sent=1(&|$)/.test(location.search))document.querySelector('[data-lead-sent]').hidden=false</script>
</section>`;

const page = (body: string) => `{% layout 'layouts/base' %}
{% block content %}
${body}
{% endblock %}
`;

/** The templates every kit shares, shaped by its kit. */
export function sharedTemplates(shape: KitShape): StarterTemplate[] {
  return [
    { name: 'layouts/base', boundType: '', content: layout(shape) },
    { name: 'partials/card', boundType: '', content: card(shape) },
    {
      name: 'default',
      boundType: '',
      content: page(`<article class="prose">
<h1>{{ item.title | default: item.name }}</h1>
{{ item.content | markdown }}
</article>
{% if item.type == 'page' and item.slug == 'about' %}{% include 'partials/contact-form' %}{% endif %}`),
    },
    {
      name: 'list',
      boundType: '',
      content:
        page(`<h1>{{ route.title }}{% if pagination.page > 1 %} <span class="meta">(page {{ pagination.page }} of {{ pagination.pages }})</span>{% endif %}</h1>
{% if route.data.intro %}<p class="meta">{{ route.data.intro }}</p>{% endif %}
<ul class="cards">{% for entry in pagination.items %}{% assign level = 'h2' %}{% include 'partials/card' %}{% endfor %}</ul>
${PAGINATION}`),
    },
    {
      name: 'tag',
      boundType: 'tag',
      content: page(`<p class="meta">Tag</p>
<h1>#{{ item.name }}</h1>
{% if item.description %}<p>{{ item.description }}</p>{% endif %}
{% traverse item 'TAGGED' direction: 'in', limit: 1000 as tagged %}
<p class="meta">{{ tagged.size }} {% if tagged.size == 1 %}entry{% else %}entries{% endif %}</p>
<ul class="cards">{% for entry in tagged %}{% assign level = 'h2' %}{% include 'partials/card' %}{% endfor %}</ul>
<p><a href="{{ '/tags/' | relative_url }}">All tags</a></p>`),
    },
    {
      name: 'tags',
      boundType: '',
      content: page(`<h1>{{ route.title }}</h1>
{% list 'tag' sort: 'name', limit: 1000 as tags %}
<ul class="tags" aria-label="All tags">{% for tag in tags %}<li><a href="{{ tag.url | relative_url }}">#{{ tag.name }}</a></li>{% endfor %}</ul>`),
    },
    {
      name: 'author',
      boundType: 'author',
      content:
        page(`<div class="byline"><div class="avatar" aria-hidden="true"></div><div><p class="meta">Author</p><h1>{{ item.name }}</h1></div></div>
<div class="prose">{{ item.bio | markdown }}</div>
{% traverse item 'WRITTEN_BY' direction: 'in', limit: 1000 as written %}
<h2>By {{ item.name }}</h2>
<ul class="cards">{% for entry in written %}{% assign level = 'h3' %}{% include 'partials/card' %}{% endfor %}</ul>`),
    },
    {
      name: 'feed',
      boundType: '',
      content: `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>{{ site.name }}</title>
{% if site.mantra != blank %}<subtitle>{{ site.mantra }}</subtitle>{% endif %}
<link href="{{ '/' | absolute_url }}"/>
<link rel="self" href="{{ '/feed.xml' | absolute_url }}"/>
<id>{{ '/' | absolute_url }}</id>
{% list '${shape.feedType}' sort: '${shape.feedSort}', limit: 20 as entries %}
<updated>{% for entry in entries limit: 1 %}{{ entry.${shape.dateField ?? 'updatedAt'} | default: entry.updatedAt | date: '%Y-%m-%dT%H:%M:%SZ' }}{% else %}{{ site.createdAt | date: '%Y-%m-%dT%H:%M:%SZ' }}{% endfor %}</updated>
{% for entry in entries %}<entry>
<title>{% if entry.type == 'release-note' %}Release {{ entry.release }}{% else %}{{ entry.title }}{% endif %}</title>
<link href="{{ entry.url | absolute_url }}"/>
<id>{{ entry.url | absolute_url }}</id>
<updated>{{ entry.${shape.dateField ?? 'updatedAt'} | default: entry.updatedAt | date: '%Y-%m-%dT%H:%M:%SZ' }}</updated>
<author><name>{{ site.name }}</name></author>
<summary>{{ entry.excerpt | default: entry.summary | default: entry.content | markdown | strip_html | truncatewords: 40 }}</summary>
</entry>
{% endfor %}</feed>
`,
    },
    {
      name: '404',
      boundType: '',
      // Served at any missing URL: the layout gives it a <base> at the site's root, so its links
      // resolve against the root, not against the URL asked for.
      content:
        page(`<div class="hero"><p class="meta">Error 404</p><h1>Page not found</h1><p>The page you asked for is not here. It may have moved, or the link may be mistyped.</p></div>
<p><a href="{{ '/' | relative_url }}">Go to the home page</a> or use the search box above.</p>`),
    },
    { name: 'partials/byline', boundType: '', content: BYLINE },
    { name: 'partials/taglist', boundType: '', content: TAG_LIST },
    { name: 'partials/contact-form', boundType: '', content: CONTACT_FORM },
  ];
}

export const kitPage = page;
