import { type Command, Option } from 'commander';
import { type CommandKit, group, subcommand } from '../command-kit';
import { mediaDelete, mediaList, mediaStock, mediaUpload } from './media';

/** `cms media list|upload|rm|stock` */
export function defineMediaCommands(program: Command, { io, action }: CommandKit): void {
  const media = group(program, 'media', 'Media assets of the site: images, videos, PDFs', [
    'cms media upload ./photos/cover.jpg',
    'cms media list --q cover',
  ]);
  subcommand(media, 'list', 'List assets, newest first', [
    'cms media list --q cover',
    'cms media list --count',
  ])
    .option('--q <text>', 'only file names containing this text')
    .option('--count', 'print only how many assets match')
    .action(
      action<{ q?: string; count?: boolean }>(async (context, _args, options) =>
        mediaList({
          site: await context.site(),
          out: context.out,
          q: options.q,
          count: options.count === true,
        }),
      ),
    );
  subcommand(
    media,
    'upload',
    'Upload files (images, videos, PDFs; 25 MB each at most); the same file twice is stored once',
    'cms media upload cover.jpg diagram.png',
    'Items refer to an asset by its id (asset:<sha>) in an image field; templates show it with {{ id | media_url }}.',
  )
    .argument('<files...>', 'files to upload')
    .action(
      action(async (context, [files]) =>
        mediaUpload({
          site: await context.site(),
          out: context.out,
          io,
          files: files as unknown as string[],
        }),
      ),
    );
  subcommand(
    media,
    'rm',
    'Delete an asset and its file (alias delete)',
    ['cms media rm asset:3f2a…', 'cms media rm asset:3f2a… --cascade'],
    'An asset that items show is refused (409 in_use) and the items are listed; --cascade clears it from their image fields first.',
  )
    .alias('delete')
    .argument('<id>', 'asset id (asset:<sha>)')
    .option('--cascade', 'clear it from the items that show it')
    .action(
      action<{ cascade?: boolean }>(async (context, [id], options) =>
        mediaDelete({
          site: await context.site(),
          out: context.out,
          id: id!,
          cascade: options.cascade === true,
        }),
      ),
    );
  subcommand(
    media,
    'stock',
    'Search stock photos of a provider',
    'cms media stock "mountain lake" --provider pexels',
  )
    .argument('<query>', 'what to search for')
    .addOption(
      new Option('--provider <name>', 'stock provider')
        .choices(['pexels', 'unsplash', 'pixabay'])
        .default('pexels'),
    )
    .option('--orientation <orientation>', 'e.g. landscape or portrait')
    .action(
      action<{ provider: 'pexels' | 'unsplash' | 'pixabay'; orientation?: string }>(
        async (context, [q], options) =>
          mediaStock({
            site: await context.site(),
            out: context.out,
            q: q!,
            provider: options.provider,
            orientation: options.orientation,
          }),
      ),
    );
}
