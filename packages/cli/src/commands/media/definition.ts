import { Argument, type Command, Option } from 'commander';
import { type CommandKit, group, subcommand, toPositiveInt } from '../command-kit';
import {
  mediaDelete,
  mediaList,
  mediaStock,
  mediaStockImport,
  mediaUpload,
  type StockProviderName,
} from './media';

/** `cms media list|upload|rm|stock search|stock import` */
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
  const stock = group(media, 'stock', 'Stock photos of Pexels, Unsplash and Pixabay: search and import', [
    'cms media stock search "mountain lake" --provider pexels',
    'cms media stock import pexels 2014422',
  ]);
  const providers = ['pexels', 'unsplash', 'pixabay'] as const;
  subcommand(
    stock,
    'search',
    'Search stock photos of a provider (the default: cms media stock "<query>")',
    [
      'cms media stock search "mountain lake" --provider pexels',
      'cms media stock search forest --provider unsplash --orientation portrait --page 2',
    ],
    'The server asks the provider with its own key (PEXELS_API_KEY, UNSPLASH_ACCESS_KEY, PIXABAY_API_KEY); see docs/media.md.',
    { isDefault: true },
  )
    .argument('<query>', 'what to search for')
    .addOption(new Option('--provider <name>', 'stock provider').choices(providers).default('pexels'))
    .addOption(
      new Option('--orientation <orientation>', 'photo orientation').choices([
        'landscape',
        'portrait',
        'square',
      ]),
    )
    .option('--page <n>', 'page, from 1', toPositiveInt)
    .option('--per-page <n>', 'results per page (at most 80)', toPositiveInt)
    .action(
      action<{
        provider: StockProviderName;
        orientation?: 'landscape' | 'portrait' | 'square';
        page?: number;
        perPage?: number;
      }>(async (context, [q], options) =>
        mediaStock({
          site: await context.site(),
          out: context.out,
          q: q!,
          provider: options.provider,
          orientation: options.orientation,
          page: options.page,
          perPage: options.perPage,
        }),
      ),
    );
  subcommand(
    stock,
    'import',
    'Store a stock photo as a media asset, with its credit (photographer, page, licence)',
    [
      'cms media stock import pexels 2014422',
      'cms media stock import unsplash eOLpJytrbsQ --filename summit.jpg',
    ],
    'The id is the one `cms media stock search` prints. The server fetches the full-size file and stores it like an upload; the same file stored before answers that asset.',
  )
    .addArgument(new Argument('<provider>', 'stock provider').choices(providers))
    .argument('<id>', "the photo's id at the provider")
    .option('--filename <name>', 'the stored file name (default <provider>-<id>.<ext>)')
    .action(
      action<{ filename?: string }>(async (context, [provider, id], options) =>
        mediaStockImport({
          site: await context.site(),
          out: context.out,
          provider: provider as StockProviderName,
          id: id!,
          filename: options.filename,
        }),
      ),
    );
}
