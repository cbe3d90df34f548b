import type { StarterItem } from './starter-kits';

// The sample content of the starter kits: enough to show every kind of page (a listing with
// more than one page, tags shared by several items, an author with several items). Edit or
// delete it like any other content.

const tags = (entries: Array<[string, string, string]>): StarterItem[] =>
  entries.map(([slug, name, description]) => ({ type: 'tag', fields: { slug, name, description } }));

const about = (content: string): StarterItem => ({
  type: 'page',
  fields: {
    title: 'About',
    slug: 'about',
    content,
    seoDescription: 'Who we are and what this site is about.',
  },
});

const posts: Array<[string, string, string, string, string[]]> = [
  [
    'hello-world',
    'Hello, world',
    '2026-01-05T09:00:00Z',
    'Why this blog exists, and what you can expect to read here.',
    ['news'],
  ],
  [
    'writing-every-week',
    'Writing every week',
    '2026-01-12T09:00:00Z',
    'A small routine that made publishing a habit instead of a chore.',
    ['writing', 'habits'],
  ],
  [
    'notes-on-plain-text',
    'Notes on plain text',
    '2026-01-19T09:00:00Z',
    'Markdown, version history and why plain text outlives every editor.',
    ['writing', 'tools'],
  ],
  [
    'a-reading-list',
    'A reading list for the winter',
    '2026-01-26T09:00:00Z',
    'Five books about craft, attention and the long view.',
    ['reading'],
  ],
  [
    'tools-i-use',
    'The tools I use',
    '2026-02-02T09:00:00Z',
    'A short, honest list of what is on my desk and in my editor.',
    ['tools'],
  ],
  [
    'on-editing',
    'On editing',
    '2026-02-09T09:00:00Z',
    'Cutting a draft in half usually makes it twice as good.',
    ['writing'],
  ],
  [
    'what-is-next',
    'What is next',
    '2026-02-16T09:00:00Z',
    'Plans for the spring: a newsletter, a series on habits and a redesign.',
    ['news', 'habits'],
  ],
];

const body = (excerpt: string) =>
  `${excerpt}\n\nThis is sample content from the starter kit. Edit it, or delete it and write your own.\n\n## A heading\n\nParagraphs, **bold**, _italics_, [links](https://example.org) and lists:\n\n- one\n- two\n- three\n`;

const authorItems: StarterItem[] = [
  {
    type: 'author',
    fields: {
      slug: 'alex-morgan',
      name: 'Alex Morgan',
      bio: 'Alex writes about writing, tools and the habits that keep a small blog alive.',
    },
  },
  {
    type: 'author',
    fields: { slug: 'sam-lee', name: 'Sam Lee', bio: 'Sam reads a lot and writes about some of it.' },
  },
  ...tags([
    ['news', 'News', 'What is new on this site.'],
    ['writing', 'Writing', 'The craft of writing and publishing.'],
    ['habits', 'Habits', 'Routines that make the work happen.'],
    ['tools', 'Tools', 'Software and paper we rely on.'],
    ['reading', 'Reading', 'Books worth your time.'],
  ]),
  about(
    'This blog is published with **Trellis**. The posts, authors and tags here come from the _author_ starter kit: change them, add your own, and rebuild.',
  ),
  ...posts.map(([slug, title, publishDate, excerpt, postTags], i) => ({
    type: 'post',
    fields: { slug, title, publishDate, excerpt, content: body(excerpt) },
    relationships: {
      author: i % 3 === 2 ? 'author:sam-lee' : 'author:alex-morgan',
      tags: postTags.map((t) => `tag:${t}`),
    },
  })),
];

const projects: Array<[string, string, string, number, string, boolean, string[]]> = [
  [
    'harbour-identity',
    'Harbour identity',
    'Harbour Coffee',
    2026,
    'A warm, typographic identity for a waterfront café.',
    true,
    ['branding', 'print'],
  ],
  [
    'field-notes-app',
    'Field Notes app',
    'Field Notes Co.',
    2025,
    'A calm note-taking app for researchers working offline.',
    true,
    ['product', 'ui'],
  ],
  [
    'museum-wayfinding',
    'Museum wayfinding',
    'City Museum',
    2025,
    'Signs, maps and a colour system for a five-floor museum.',
    false,
    ['print', 'wayfinding'],
  ],
  [
    'annual-report',
    'Annual report 2024',
    'Northwind Trust',
    2025,
    'An annual report that reads like a magazine.',
    false,
    ['print', 'editorial'],
  ],
  [
    'transit-dashboard',
    'Transit dashboard',
    'Metro Lines',
    2024,
    'Live departures that can be read from across a platform.',
    false,
    ['ui', 'product'],
  ],
  [
    'bakery-packaging',
    'Bakery packaging',
    'Crumb & Co.',
    2024,
    'Boxes, bags and stickers for a neighbourhood bakery.',
    false,
    ['branding', 'packaging'],
  ],
  [
    'festival-posters',
    'Festival posters',
    'Summer Sounds',
    2023,
    'A poster series with one shape and twelve colours.',
    false,
    ['print', 'branding'],
  ],
];

const designerItems: StarterItem[] = [
  {
    type: 'author',
    fields: {
      slug: 'robin-vega',
      name: 'Robin Vega',
      bio: 'Robin is an independent designer working on identities, products and print.',
    },
  },
  ...tags([
    ['branding', 'Branding', 'Identities and the systems around them.'],
    ['print', 'Print', 'Work made for paper.'],
    ['product', 'Product', 'Apps and services.'],
    ['ui', 'UI', 'Interfaces and interaction.'],
    ['wayfinding', 'Wayfinding', 'Helping people find their way.'],
    ['editorial', 'Editorial', 'Reports, books and magazines.'],
    ['packaging', 'Packaging', 'Things you can hold.'],
  ]),
  about(
    'I design identities, products and printed matter for people who care about details. This portfolio comes from the _designer_ starter kit of **Trellis**.',
  ),
  ...projects.map(([slug, title, client, year, summary, featured, projectTags]) => ({
    type: 'project',
    fields: {
      slug,
      title,
      client,
      year,
      summary,
      featured,
      content: `## The brief\n\nSample content from the starter kit: describe the problem, the approach and the outcome.\n\n## The result\n\nAdd a hero image and a gallery to show the work.\n`,
    },
    relationships: { author: 'author:robin-vega', tags: projectTags.map((t) => `tag:${t}`) },
  })),
];

const docs: Array<[string, string, string, number, string, string[]]> = [
  ['introduction', 'Introduction', 'guide', 1, 'What the project does and who it is for.', ['basics']],
  [
    'installation',
    'Installation',
    'guide',
    2,
    'Install the package and check that it runs.',
    ['basics', 'setup'],
  ],
  ['configuration', 'Configuration', 'guide', 3, 'Every setting, with its default.', ['setup']],
  [
    'first-project',
    'Your first project',
    'tutorial',
    1,
    'Build something small from start to finish.',
    ['basics'],
  ],
  ['deploying', 'Deploying', 'tutorial', 2, 'Ship it to a server or a static host.', ['setup', 'operations']],
  ['cli-reference', 'CLI reference', 'reference', 1, 'Every command and option.', ['reference']],
];

const developerItems: StarterItem[] = [
  {
    type: 'author',
    fields: {
      slug: 'casey-kim',
      name: 'Casey Kim',
      bio: 'Casey maintains the project and writes most of its documentation.',
    },
  },
  ...tags([
    ['basics', 'Basics', 'Start here.'],
    ['setup', 'Setup', 'Installing and configuring.'],
    ['operations', 'Operations', 'Running it in production.'],
    ['reference', 'Reference', 'Exact details.'],
  ]),
  about(
    'The documentation and changelog of a software project, from the _developer_ starter kit of **Trellis**.',
  ),
  // reversed, so each doc's `next` (the following one of its section) exists before it
  ...docs
    .map(([slug, title, section, order, excerpt, docTags], i) => {
      const next = docs[i + 1];
      return {
        type: 'doc',
        fields: {
          slug,
          title,
          section,
          order,
          excerpt,
          content: `${excerpt}\n\nSample content from the starter kit.\n\n\`\`\`sh\nnpm install example\nexample --help\n\`\`\`\n\n## Details\n\nReplace this page with your own documentation.\n`,
        },
        relationships: {
          ...(next && next[2] === section ? { next: `doc:${next[0]}` } : {}),
          author: 'author:casey-kim',
          tags: docTags.map((t) => `tag:${t}`),
        },
      };
    })
    .reverse(),
  ...(
    [
      ['1.0.0', '2026-01-15', 'The first stable release.'],
      ['1.1.0', '2026-02-03', 'Configuration files and a faster start.'],
      ['1.2.0', '2026-02-24', 'A deploy command and better error messages.'],
    ] as const
  ).map(([release, date, excerpt]) => ({
    type: 'release-note',
    fields: {
      release,
      date,
      excerpt,
      content: `${excerpt}\n\n### Added\n\n- Something new\n\n### Fixed\n\n- Something that was broken\n`,
    },
  })),
];

/** Each kit's sample content, relationship targets first. */
export const KIT_ITEMS: Readonly<Record<'author' | 'designer' | 'developer', StarterItem[]>> = {
  author: authorItems,
  designer: designerItems,
  developer: developerItems,
};
