import { type Command, Option } from 'commander';
import { RECORD_FORMATS, type RecordFormat } from '../../io/read-records';
import { type CommandKit, subcommand, toPositiveInt } from '../command-kit';
import { importEdges, importRecords } from './import';

export interface ImportRecordsFlags {
  type: string;
  format?: RecordFormat;
  batchSize?: number;
  callSize?: number;
  skipExisting?: boolean;
  dryRun?: boolean;
  errorsFile?: string;
}

export interface ImportEdgesFlags {
  format?: RecordFormat;
  batchSize?: number;
  callSize?: number;
  errorsFile?: string;
}

/** `cms import records|edges` */
export function defineImportCommands(program: Command, { io, action }: CommandKit): void {
  const importCommand = program.command('import').description('Bulk import records and edges');
  subcommand(
    importCommand,
    'records',
    'Import records of a type from JSON, NDJSON or CSV',
    'cms import records countries.csv --type country --errors-file failed.ndjson',
  )
    .argument(
      '<file>',
      'a .json (array, {"records": [...]}, or {"records": {"<type>": [...]}}), .ndjson or .csv file',
    )
    .requiredOption('--type <name>', 'content type of the records')
    .addOption(
      new Option('--format <format>', 'input format (default: from the extension)').choices(RECORD_FORMATS),
    )
    .option('--batch-size <n>', 'records per server transaction (1-500, server default 100)', toPositiveInt)
    .option('--call-size <n>', 'records per request (default 1000; shrinks on 413)', toPositiveInt)
    .option('--skip-existing', 'leave items that already exist alone')
    .option('--dry-run', 'validate only; write nothing')
    .option('--errors-file <path>', 'where failed records go (default <file>.errors.ndjson)')
    .action(
      action<ImportRecordsFlags>(async (context, [file], options) =>
        importRecords({
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
          errorsFile: options.errorsFile,
        }),
      ),
    );
  subcommand(
    importCommand,
    'edges',
    'Import relationship edges {from, edge, to, props?}',
    'cms import edges edges.json',
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
}
