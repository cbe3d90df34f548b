import { join, relative } from 'node:path';
import { ExitCode, UsageError } from '../../errors';
import type { CliIo } from '../../io/cli-io';
import type { Output } from '../../io/output';
import {
  BINDING_FILE,
  FOLDERS,
  jsonText,
  readBinding,
  TEMPLATES_MANIFEST,
  writeBinding,
} from './site-folder';

/** The files `cms init` writes besides `trellis.json`: a post type, its page, and a home listing. */
export const SCAFFOLD: Record<string, string> = {
  [`${FOLDERS.types}/post.json`]: jsonText({
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'slug',
    fields: [
      { name: 'title', type: 'string', required: true, maxLength: 200 },
      { name: 'slug', type: 'string', required: true, unique: true, maxLength: 120 },
      { name: 'date', type: 'date' },
      { name: 'body', type: 'markdown' },
    ],
    routePattern: '/posts/{slug}/',
  }),
  [`${FOLDERS.templates}/post.liquid`]: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{{ item.title }} · {{ site.name }}</title></head>
<body>
  <p><a href="/">{{ site.name }}</a></p>
  <article>
    <h1>{{ item.title }}</h1>
    {% if item.date %}<p><time datetime="{{ item.date }}">{{ item.date }}</time></p>{% endif %}
    {{ item.body | markdown }}
  </article>
</body>
</html>
`,
  [`${FOLDERS.templates}/home.liquid`]: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{{ site.name }}</title></head>
<body>
  <h1>{{ site.name }}</h1>
  <ul>
    {% for post in pagination.items %}<li><a href="{{ post.url }}">{{ post.title }}</a></li>{% else %}<li>No posts yet.</li>{% endfor %}
  </ul>
  {% if pagination.previous %}<a rel="prev" href="{{ pagination.previous }}">Newer</a>{% endif %}
  {% if pagination.next %}<a rel="next" href="{{ pagination.next }}">Older</a>{% endif %}
</body>
</html>
`,
  [`${FOLDERS.templates}/${TEMPLATES_MANIFEST}`]: jsonText({ post: { boundType: 'post' } }),
  [`${FOLDERS.routes}/home.json`]: jsonText({
    slug: 'home',
    path: '/',
    kind: 'listing',
    title: 'Home',
    template: 'home',
    paginate: { type: 'post', size: 10, sort: '-date' },
  }),
};

/**
 * `cms init [dir] --site <slug>`: scaffolds a site folder: `trellis.json` binding it to the
 * site, `types/`, `templates/` and `routes/` with a post type, its page template and a home
 * listing. Refuses a folder that already has a `trellis.json` (unless `force`); never
 * overwrites an existing file.
 */
export async function init({
  io,
  out,
  dir,
  site,
  force,
}: {
  io: CliIo;
  out: Output;
  dir: string;
  site: string;
  force: boolean;
}): Promise<number> {
  const existing = await readBinding(io.fs, dir).catch(() => undefined);
  if (existing && !force) {
    throw new UsageError(
      `${join(dir, BINDING_FILE)} already exists (bound to ${existing.site}); use cms push / cms pull there, or --force to rebind it.`,
    );
  }
  await io.fs.mkdir(dir, { recursive: true });
  await writeBinding(io.fs, dir, { site });
  const written: string[] = [BINDING_FILE];
  const kept: string[] = [];
  for (const [file, text] of Object.entries(SCAFFOLD)) {
    const target = join(dir, file);
    const exists = await io.fs.stat(target).then(
      () => true,
      () => false,
    );
    if (exists) {
      kept.push(file);
      continue;
    }
    await io.fs.mkdir(join(target, '..'), { recursive: true });
    await io.fs.writeFile(target, text);
    written.push(file);
  }
  const shown = relative(io.cwd, dir) || '.';
  out.result({ ok: true, dir, site, written, kept }, () => [
    `Initialised ${dir} for ${site}:`,
    ...written.map((file) => `  created ${file}`),
    ...kept.map((file) => `  kept    ${file} (already there)`),
    '',
    'Next:',
    ...(shown === '.' ? [] : [`  cd ${shown}`]),
    `  cms push --dry-run   # what would change on ${site}`,
    '  cms push',
    `  cms build --site ${site.slice('site:'.length)}   # then browse /sites/${site.slice('site:'.length)}/dev/ on the server`,
  ]);
  return ExitCode.ok;
}
