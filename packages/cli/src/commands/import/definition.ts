import { type Command, Option } from 'commander';
import { RECORD_FORMATS, type RecordFormat } from '../../io/read-records';
import { type CommandKit, subcommand, toPositiveInt } from '../command-kit';
import { importEleventy } from './eleventy';
import { importEdges, importRecords } from './import';
import { importAll } from './import-all';

export interface ImportRecordsFlags {
  type?: string;
  format?: RecordFormat;
  batchSize?: number;
  callSize?: number;
  skipExisting?: boolean;
  dryRun?: boolean;
  publish?: string;
  errorsFile?: string;
}

export interface ImportEdgesFlags {
  format?: RecordFormat;
  batchSize?: number;
  callSize?: number;
  errorsFile?: string;
}

export interface ImportEleventyFlags {
  type?: string;
  dryRun?: boolean;
  publish?: string;
}

/** `cms import records|edges|eleventy` */
export function defineImportCommands(program: Command, { io, action }: CommandKit): void {
  const importCommand = program
    .command('import')
    .description('Bulk import records and edges, or an Eleventy site');
  subcommand(
    importCommand,
    'records',
    'Import records of a type from JSON, NDJSON or CSV',
    [
      'cms import records countries.csv --type country --errors-file failed.ndjson',
      'cms import records books.json --type book --publish prod',
      'cms import records ./export/          # a folder: author.csv, post.ndjson, edges.csv',
      'cms import records site.json          # {"records": {"author": [...], "post": [...]}, "edges": [...]}',
    ],
    `Each record creates its item, updates it (a new version) or, when the item already holds
it, leaves it unchanged (no version): re-running an import is safe. --skip-existing leaves
existing items alone. CSV cells are converted by the type's fields (numbers, booleans, lists
separated by |; text fields keep 0451524934 as text); a column named after a relationship
gives its target id(s). --publish puts what each request wrote live in that environment.
Without --type, <file> is a folder of <type>.json|.ndjson|.csv files (and edges.*) or a JSON
file {"records": {"<type>": [...]}, "edges": [...]}: the types are imported in dependency order
(a type after those its references and relationships point at), then the edges. An unreadable
CSV row goes to the errors file; the others are imported. Ctrl-C stops an import and says how
to resume (run the same command again: what was imported comes back unchanged).`,
  )
    .argument(
      '<file>',
      'a .json (array, {"records": [...]}, or {"records": {"<type>": [...]}}), .ndjson or .csv file; or a folder',
    )
    .option('--type <name>', 'content type of the records (without it: a folder or a multi-type file)')
    .addOption(
      new Option('--format <format>', 'input format (default: from the extension)').choices(RECORD_FORMATS),
    )
    .option('--batch-size <n>', 'records per server transaction (1-500, server default 100)', toPositiveInt)
    .option('--call-size <n>', 'records per request (default 1000; shrinks on 413)', toPositiveInt)
    .option('--skip-existing', 'leave items that already exist alone')
    .option('--dry-run', 'validate only; write nothing')
    .option('--publish <env>', 'publish the imported items to this environment, e.g. prod')
    .option('--errors-file <path>', 'where failed records go (default <file>.errors.ndjson)')
    .action(
      action<ImportRecordsFlags>(async (context, [file], options) =>
        options.type === undefined
          ? importAll({
              site: await context.site(),
              client: await context.client(),
              out: context.out,
              io,
              path: file!,
              batchSize: options.batchSize,
              callSize: options.callSize,
              skipExisting: options.skipExisting === true,
              dryRun: options.dryRun === true,
              publish: options.publish,
              errorsFile: options.errorsFile,
            })
          : importRecords({
              site: await context.site(),
              client: await context.client(),
              out: context.out,
              io,
              file: file!,
              type: options.type,
              format: options.format,
              batchSize: options.batchSize,
              callSize: options.callSize,
              skipExisting: options.skipExisting === true,
              dryRun: options.dryRun === true,
              publish: options.publish,
              errorsFile: options.errorsFile,
            }),
      ),
    );
  subcommand(
    importCommand,
    'edges',
    'Import relationship edges {from, edge, to, props?}',
    'cms import edges edges.json',
    `Each edge must be a relationship its source item's type declares (label and target type); a
many-to-one or one-to-one relationship takes one target, so an edge to a second one fails
(remove the first with cms edges rm). Extra CSV columns become props.`,
  )
    .argument('<file>', 'a .json (array or {"edges": [...]}), .ndjson or .csv (from,edge,to[,prop...]) file')
    .addOption(
      new Option('--format <format>', 'input format (default: from the extension)').choices(RECORD_FORMATS),
    )
    .option('--batch-size <n>', 'edges per server transaction (1-2000, server default 500)', toPositiveInt)
    .option('--call-size <n>', 'edges per request (default 5000; shrinks on 413)', toPositiveInt)
    .option('--errors-file <path>', 'where failed edges go (default <file>.errors.ndjson)')
    .action(
      action<ImportEdgesFlags>(async (context, [file], options) =>
        importEdges({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          file: file!,
          format: options.format,
          batchSize: options.batchSize,
          callSize: options.callSize,
          errorsFile: options.errorsFile,
        }),
      ),
    );
  subcommand(
    importCommand,
    'eleventy',
    "Import an Eleventy site's content, collections and pagination",
    ['cms import eleventy ./my-blog --dry-run', 'cms import eleventy ./my-blog --type post --publish prod'],
    `Reads every Markdown file with front matter under <dir> (not _includes, _data, _site or
node_modules) as an item of --type (default post): title, date, tags (a list field), the other
plain front matter keys, body = the Markdown, slug = Eleventy's fileSlug; the type is created
when missing, at /<folder>/{slug}/ when the content sits in one folder. Tags become site
collections (site.collections.all, .tags grouped by tag, and one per tag like Eleventy's
collections.<tag>). A template paginating over collections (pages per tag) becomes a listing
route paginated by the tags field (/tags/{value}/), one over collections.<tag> a listing of
that tag. Layouts and the site's Liquid templates are not converted; simple templates are
created for the item pages and the routes. Re-running is safe (existing items are updated).`,
  )
    .argument('<dir>', "the Eleventy site's input folder")
    .option('--type <name>', 'content type of the items (default post)')
    .option('--dry-run', 'print what would be imported; write nothing')
    .option('--publish <env>', 'publish the imported items to this environment, e.g. prod')
    .action(
      action<ImportEleventyFlags>(async (context, [dir], options) =>
        importEleventy({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          dir: dir!,
          type: options.type ?? 'post',
          dryRun: options.dryRun === true,
          publish: options.publish,
        }),
      ),
    );
}
