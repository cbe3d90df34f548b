import { createClient, type SiteClient, type TrellisClient } from '@trelliscms/sdk';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { auditVerify } from './commands/audit';
import { build } from './commands/build';
import {
  contentCreate,
  contentDelete,
  contentGet,
  contentList,
  contentPublish,
  contentUpdate,
  contentVersions,
  readItemBody,
} from './commands/content';
import { health } from './commands/health';
import { importEdges, importRecords } from './commands/import';
import { keysCreate, keysList, keysRevoke } from './commands/keys';
import { login } from './commands/login';
import { membersGrant, membersList, membersRevoke, membersRole } from './commands/members';
import { routesApply, routesList } from './commands/routes';
import { sitesCreate, sitesDelete, sitesGet, sitesList, sitesUpdate, sitesUse } from './commands/sites';
import { templatesList, templatesPull, templatesPush, templatesVersions } from './commands/templates';
import { typesApply, typesGet, typesList } from './commands/types';
import { configPath, readConfig } from './config/profiles';
import { type Connection, type GlobalFlags, resolveConnection } from './config/resolve-connection';
import { ExitCode, errorJson, exitCodeOf, formatError, UsageError } from './errors';
import type { CliIo } from './io/cli-io';
import { Output } from './io/output';
import { VERSION } from './version';

/** What an action gets: parsed flags, output, and lazily the connection and clients. */
interface ActionContext {
  io: CliIo;
  flags: GlobalFlags;
  out: Output;
  configFile: string;
  connection(): Promise<Connection>;
  client(): Promise<TrellisClient>;
  site(): Promise<SiteClient>;
}

type ActionFn = (context: ActionContext, args: string[], options: Record<string, any>) => Promise<number>;

function toPositiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a positive integer');
  return number;
}

function toNonNegativeInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new InvalidArgumentError('must be a non-negative integer');
  return number;
}

/** A client for `url`; a URL that is not http(s) is a usage error. */
function clientFor(url: string, key: string | undefined, io: CliIo): TrellisClient {
  if (!/^https?:\/\/[^/]/.test(url))
    throw new UsageError(`The server URL must start with http:// or https:// (got ${url}).`);
  return createClient({ baseUrl: url, apiKey: key, fetch: io.fetch });
}

/**
 * Builds the `cms` command tree. Each action resolves its connection and calls a command
 * module with its I/O; `state.exitCode` receives the module's exit code.
 */
export function createProgram(io: CliIo, state: { exitCode: number }): Command {
  const program = new Command('cms');
  program
    .description(
      'Operate a Trellis server: sites, types, content, imports, templates, builds, members and keys.',
    )
    .version(VERSION, '-v, --version')
    .option('--url <url>', 'server URL (env CMS_URL; default: the profile)')
    .option('--key <key>', 'API key (env CMS_API_KEY; default: the profile)')
    .option('--site <id>', 'site id site:<slug> for site commands (env CMS_SITE; default: the profile)')
    .option(
      '--profile <name>',
      'profile of the config file to use (env CMS_PROFILE; default: the current one)',
    )
    .option('--json', 'print machine-readable JSON on stdout')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Exit codes: 0 ok, 1 API error, 2 usage error, 3 connection error, 4 partial failure.

Example:
  $ cms login --url http://127.0.0.1:4000 --key "$CMS_OWNER_KEY"
  $ cms sites create "My blog" --slug blog --starter-kit author --use
  $ cms build`,
    );

  const makeContext = (command: Command): ActionContext => {
    const flags = command.optsWithGlobals() as GlobalFlags;
    const out = new Output({ stdout: io.stdout, stderr: io.stderr, json: flags.json === true });
    const configFile = configPath(io.env);
    let connection: Promise<Connection> | undefined;
    let client: Promise<TrellisClient> | undefined;
    const context: ActionContext = {
      io,
      flags,
      out,
      configFile,
      connection: () => {
        connection ??= readConfig(io.fs, configFile).then((config) =>
          resolveConnection({ flags, env: io.env, config }),
        );
        return connection;
      },
      client: () => {
        client ??= context
          .connection()
          .then((resolved) => createClient({ baseUrl: resolved.url, apiKey: resolved.key, fetch: io.fetch }));
        return client;
      },
      site: async () => {
        const resolved = await context.connection();
        if (!resolved.site) {
          throw new UsageError('No site: pass --site site:<slug>, set CMS_SITE, or run cms sites use <id>.');
        }
        return (await context.client()).site(resolved.site);
      },
    };
    return context;
  };

  const action =
    (fn: ActionFn) =>
    async (...raw: unknown[]) => {
      const command = raw[raw.length - 1] as Command;
      const options = raw[raw.length - 2] as Record<string, any>;
      const args = raw.slice(0, -2) as string[];
      state.exitCode = await fn(makeContext(command), args, options);
    };

  const sub = (parent: Command, name: string, description: string, example: string) =>
    parent.command(name).description(description).addHelpText('after', `\nExample:\n  $ ${example}`);

  // login: --url, --key, --site and --profile are the global options, required here.
  sub(
    program,
    'login',
    'Save --url and --key as a profile (checked with the server first); --site sets its default site',
    'cms login --url http://127.0.0.1:4000 --key tk_... --profile local',
  )
    .option('--no-verify', 'save without checking the URL and key')
    .action(
      action(async (context, _args, options) => {
        const { url, key, site, profile = 'default' } = context.flags;
        if (!url || !key) throw new UsageError('cms login needs --url <url> and --key <key>.');
        const client = clientFor(url, key, io);
        return login({
          io,
          out: context.out,
          configFile: context.configFile,
          url,
          key,
          profile,
          site,
          verify: options.verify !== false,
          client,
        });
      }),
    );

  sub(program, 'health', 'Check the server (and with --detail the graph engine)', 'cms health --detail')
    .option('--detail', 'probe the engine too')
    .action(
      action(async (context, _args, options) =>
        health({ client: await context.client(), out: context.out, detail: options.detail === true }),
      ),
    );

  // sites
  const sites = program.command('sites').description('List, create, inspect, update and delete sites');
  sub(sites, 'list', 'List the sites you can access', 'cms sites list --json').action(
    action(async (context) => sitesList({ client: await context.client(), out: context.out })),
  );
  sub(
    sites,
    'create',
    'Create a site, seeded from a starter kit',
    'cms sites create "My blog" --slug blog --starter-kit author --use',
  )
    .argument('<name>', 'site name')
    .option('--slug <slug>', 'URL slug (default: from the name)')
    .addOption(
      new Option('--starter-kit <kit>', 'seed types and templates').choices([
        'designer',
        'developer',
        'author',
        'none',
      ]),
    )
    .option('--public-url <url>', 'where the site is published')
    .option('--description <text>', 'description')
    .option('--use', 'make it the default site of the current profile')
    .action(
      action(async (context, [name], options) => {
        const client = await context.client();
        const body = {
          name: name!,
          ...(options.slug ? { slug: options.slug } : {}),
          ...(options.starterKit ? { starterKit: options.starterKit } : {}),
          ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
          ...(options.description ? { description: options.description } : {}),
        };
        const use = options.use
          ? { io, configFile: context.configFile, profile: (await context.connection()).profile }
          : undefined;
        return sitesCreate({ client, out: context.out, body, use });
      }),
    );
  sub(sites, 'get', 'Show a site', 'cms sites get site:blog')
    .argument('<id>', 'site id site:<slug>')
    .action(
      action(async (context, [id]) =>
        sitesGet({ client: await context.client(), out: context.out, id: id! }),
      ),
    );
  sub(
    sites,
    'update',
    'Change a site (only the options given)',
    'cms sites update site:blog --public-url https://blog.example.com',
  )
    .argument('<id>', 'site id')
    .option('--name <name>', 'new name')
    .option('--public-url <url>', 'public URL')
    .option('--description <text>', 'description')
    .option('--mantra <text>', 'mantra')
    .addOption(
      new Option('--search-emission <mode>', 'build-time search index').choices([
        'none',
        'bm25',
        'bm25+vector',
      ]),
    )
    .action(
      action(async (context, [id], options) =>
        sitesUpdate({
          client: await context.client(),
          out: context.out,
          id: id!,
          body: {
            ...(options.name ? { name: options.name } : {}),
            ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.mantra !== undefined ? { mantra: options.mantra } : {}),
            ...(options.searchEmission ? { searchEmission: options.searchEmission } : {}),
          },
        }),
      ),
    );
  sub(sites, 'delete', 'Soft-delete a site (owner only)', 'cms sites delete site:old --yes')
    .argument('<id>', 'site id')
    .option('--yes', 'confirm')
    .action(
      action(async (context, [id], options) =>
        sitesDelete({ client: await context.client(), out: context.out, id: id!, yes: options.yes === true }),
      ),
    );
  sub(sites, 'use', 'Make a site the default of the current profile', 'cms sites use site:blog')
    .argument('<id>', 'site id')
    .action(
      action(async (context, [id]) => {
        const connection = await context.connection();
        return sitesUse({
          client: await context.client(),
          out: context.out,
          io,
          id: id!,
          configFile: context.configFile,
          profile: connection.profile,
        });
      }),
    );

  // types
  const types = program.command('types').description('Content types of the site');
  sub(types, 'list', 'List the content types', 'cms types list').action(
    action(async (context) => typesList({ site: await context.site(), out: context.out })),
  );
  sub(types, 'get', 'Show a content type in full', 'cms types get post --json')
    .argument('<name>', 'type name')
    .action(
      action(async (context, [name]) =>
        typesGet({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
  sub(
    types,
    'apply',
    'Create or update types from a JSON file or a folder of them (idempotent)',
    'cms types apply ./types/',
  )
    .argument(
      '<file-or-folder>',
      'a .json file (one type, an array, or {"types": [...]}) or a folder of .json files',
    )
    .action(
      action(async (context, [target]) =>
        typesApply({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          target: target!,
        }),
      ),
    );

  // routes
  const routes = program
    .command('routes')
    .description('Hand-made URLs of the site: pages, listings, redirects');
  sub(routes, 'list', 'List routes', 'cms routes list').action(
    action(async (context) => routesList({ site: await context.site(), out: context.out })),
  );
  sub(
    routes,
    'apply',
    'Create or update routes from a JSON file or a folder of them (idempotent)',
    'cms routes apply routes.json',
  )
    .argument(
      '<file-or-folder>',
      'a .json file (one route, an array, or {"routes": [...]}) or a folder of .json files',
    )
    .action(
      action(async (context, [target]) =>
        routesApply({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          target: target!,
        }),
      ),
    );

  // content
  const content = program.command('content').description('Content items of the site');
  sub(
    content,
    'list',
    'List items of a type (a page with the total, or --all)',
    'cms content list post --status published --limit 20',
  )
    .argument('<type>', 'type name')
    .option('--limit <n>', 'items per page (default 50)', toPositiveInt)
    .option('--offset <n>', 'items to skip', toNonNegativeInt)
    .option('--q <text>', 'full-text search')
    .option('--status <status>', 'workflow status, e.g. published')
    .option('--all', 'fetch every match, page by page')
    .action(
      action(async (context, [type], options) =>
        contentList({
          site: await context.site(),
          out: context.out,
          type: type!,
          limit: options.limit,
          offset: options.offset,
          q: options.q,
          status: options.status,
          all: options.all === true,
        }),
      ),
    );
  sub(content, 'get', 'Show an item', 'cms content get post hello-world')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id <type>:<slug>, or the slug')
    .action(
      action(async (context, [type, id]) =>
        contentGet({ site: await context.site(), out: context.out, type: type!, id: id! }),
      ),
    );
  sub(
    content,
    'create',
    'Create an item',
    `cms content create post --data '{"slug":"hello","title":"Hello"}'`,
  )
    .argument('<type>', 'type name')
    .option('--data <json>', 'the item: {"field": value, ...} or {"fields": {...}, "relationships": {...}}')
    .option('--file <path>', 'read the item from a JSON file')
    .action(
      action(async (context, [type], options) =>
        contentCreate({
          site: await context.site(),
          out: context.out,
          type: type!,
          body: await readItemBody({ io, data: options.data, file: options.file }),
        }),
      ),
    );
  sub(
    content,
    'update',
    'Update fields of an item',
    `cms content update post hello --data '{"title":"Hello again"}'`,
  )
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .option('--data <json>', 'the fields to change')
    .option('--file <path>', 'read the fields from a JSON file')
    .action(
      action(async (context, [type, id], options) =>
        contentUpdate({
          site: await context.site(),
          out: context.out,
          type: type!,
          id: id!,
          body: await readItemBody({ io, data: options.data, file: options.file }),
        }),
      ),
    );
  sub(content, 'delete', 'Delete an item', 'cms content delete post hello')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .action(
      action(async (context, [type, id]) =>
        contentDelete({ site: await context.site(), out: context.out, type: type!, id: id! }),
      ),
    );
  sub(content, 'versions', 'List the recorded versions of an item', 'cms content versions post hello')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .action(
      action(async (context, [type, id]) =>
        contentVersions({ site: await context.site(), out: context.out, type: type!, id: id! }),
      ),
    );
  sub(content, 'publish', 'Publish an item to an environment', 'cms content publish post hello --env prod')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .option('--env <name>', "environment to publish to (the server's default: prod)")
    .action(
      action(async (context, [type, id], options) =>
        contentPublish({
          site: await context.site(),
          out: context.out,
          type: type!,
          id: id!,
          env: options.env,
        }),
      ),
    );

  // import
  const importCommand = program.command('import').description('Bulk import records and edges');
  sub(
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
      new Option('--format <format>', 'input format (default: from the extension)').choices([
        'json',
        'ndjson',
        'csv',
      ]),
    )
    .option('--batch-size <n>', 'records per server transaction (1-500, server default 100)', toPositiveInt)
    .option('--call-size <n>', 'records per request (default 1000; shrinks on 413)', toPositiveInt)
    .option('--skip-existing', 'leave items that already exist alone')
    .option('--dry-run', 'validate only; write nothing')
    .option('--errors-file <path>', 'where failed records go (default <file>.errors.ndjson)')
    .action(
      action(async (context, [file], options) =>
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
  sub(
    importCommand,
    'edges',
    'Import relationship edges {from, edge, to, props?}',
    'cms import edges edges.json',
  )
    .argument('<file>', 'a .json (array or {"edges": [...]}), .ndjson or .csv (from,edge,to[,prop...]) file')
    .addOption(
      new Option('--format <format>', 'input format (default: from the extension)').choices([
        'json',
        'ndjson',
        'csv',
      ]),
    )
    .option('--batch-size <n>', 'edges per server transaction (1-2000, server default 500)', toPositiveInt)
    .option('--call-size <n>', 'edges per request (default 5000; shrinks on 413)', toPositiveInt)
    .option('--errors-file <path>', 'where failed edges go (default <file>.errors.ndjson)')
    .action(
      action(async (context, [file], options) =>
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

  // templates
  const templates = program.command('templates').description('Liquid templates of the site');
  sub(templates, 'list', 'List templates', 'cms templates list').action(
    action(async (context) => templatesList({ site: await context.site(), out: context.out })),
  );
  sub(
    templates,
    'push',
    'Upload every <name>.liquid of a folder (new versions only where changed)',
    'cms templates push ./templates',
  )
    .argument('<dir>', 'folder of .liquid files (optional templates.json: {"<name>": {"boundType": "post"}})')
    .action(
      action(async (context, [dir]) =>
        templatesPush({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          dir: dir!,
        }),
      ),
    );
  sub(templates, 'pull', 'Download every template into a folder', 'cms templates pull ./templates')
    .argument('<dir>', 'folder to write')
    .action(
      action(async (context, [dir]) =>
        templatesPull({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          dir: dir!,
        }),
      ),
    );
  sub(templates, 'versions', "Show a template's version and latest version", 'cms templates versions page')
    .argument('<name>', 'template name')
    .action(
      action(async (context, [name]) =>
        templatesVersions({ site: await context.site(), out: context.out, name: name! }),
      ),
    );

  // build
  sub(
    program,
    'build',
    'Build and deploy the site (sync, or --async following its status)',
    'cms build --env dev --mode full --async',
  )
    .option('--env <name>', 'environment, e.g. dev or prod')
    .addOption(new Option('--mode <mode>', 'build mode').choices(['full', 'incremental', 'auto', 'validate']))
    .option('--async', 'start the build in the background and follow its status to the end')
    .option('--dry-run', 'validate only: render in memory, deploy nothing')
    .option('--poll-interval <ms>', 'with --async: ms between status reads', toPositiveInt, 1000)
    .action(
      action(async (context, _args, options) =>
        build({
          site: await context.site(),
          out: context.out,
          env: options.env,
          mode: options.mode,
          async: options.async === true,
          dryRun: options.dryRun === true,
          pollIntervalMs: options.pollInterval,
        }),
      ),
    );

  // members
  const members = program.command('members').description('Members of the site and their roles');
  sub(members, 'list', 'List members', 'cms members list').action(
    action(async (context) => membersList({ site: await context.site(), out: context.out })),
  );
  sub(members, 'grant', 'Give a user access to the site (admin only)', 'cms members grant user:ada editor')
    .argument('<userId>', 'user id')
    .argument('<role>', 'admin, editor or publisher')
    .action(
      action(async (context, [userId, role]) => {
        if (!['admin', 'editor', 'publisher'].includes(role!))
          throw new UsageError('role must be admin, editor or publisher');
        return membersGrant({
          site: await context.site(),
          out: context.out,
          userId: userId!,
          role: role as 'admin',
        });
      }),
    );
  sub(members, 'role', "Change a member's role", 'cms members role user:ada publisher')
    .argument('<userId>', 'user id')
    .argument('<role>', 'admin, editor, publisher or viewer')
    .action(
      action(async (context, [userId, role]) => {
        if (!['admin', 'editor', 'publisher', 'viewer'].includes(role!)) {
          throw new UsageError('role must be admin, editor, publisher or viewer');
        }
        return membersRole({
          site: await context.site(),
          out: context.out,
          userId: userId!,
          role: role as 'admin',
        });
      }),
    );
  sub(members, 'revoke', "Remove a user's access to the site", 'cms members revoke user:ada')
    .argument('<userId>', 'user id')
    .action(
      action(async (context, [userId]) =>
        membersRevoke({ site: await context.site(), out: context.out, userId: userId! }),
      ),
    );

  // keys
  const keys = program.command('keys').description('API keys of the site');
  sub(keys, 'list', 'List keys (never their secrets)', 'cms keys list').action(
    action(async (context) => keysList({ site: await context.site(), out: context.out })),
  );
  sub(keys, 'create', 'Mint a key; its secret is printed once', 'cms keys create --name ci --role publisher')
    .requiredOption('--name <name>', 'key name')
    .addOption(
      new Option('--role <role>', 'role')
        .choices(['admin', 'editor', 'publisher', 'viewer'])
        .makeOptionMandatory(),
    )
    .action(
      action(async (context, _args, options) =>
        keysCreate({
          site: await context.site(),
          out: context.out,
          body: { name: options.name, role: options.role },
        }),
      ),
    );
  sub(keys, 'revoke', 'Revoke a key', 'cms keys revoke key_123')
    .argument('<id>', 'key id')
    .action(
      action(async (context, [id]) => keysRevoke({ site: await context.site(), out: context.out, id: id! })),
    );

  // audit
  const audit = program.command('audit').description('Audit chain');
  sub(audit, 'verify', "Verify the site's audit hash chain (exit 1 when broken)", 'cms audit verify')
    .option('--graph <name>', "graph name (default: the site's graph)")
    .action(
      action(async (context, _args, options) =>
        auditVerify({ site: await context.site(), out: context.out, graph: options.graph }),
      ),
    );

  return program;
}

/**
 * Runs `cms` with `argv` (without the node and script entries) and returns the exit code.
 * Errors are printed as one or two lines (status, code, hint), never as a stack trace.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const state = { exitCode: ExitCode.ok as number };
  const program = createProgram(io, state);
  const configure = (command: Command) => {
    command.exitOverride();
    command.configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
    for (const child of command.commands) configure(child);
  };
  configure(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version exit 0; a group run without a subcommand, an unknown option or a
      // missing argument has already been reported by commander: a usage error.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const wantsJson = argv.includes('--json');
    if (wantsJson) io.stdout.write(`${JSON.stringify(errorJson(error), null, 2)}\n`);
    io.stderr.write(`${formatError(error)}\n`);
    return exitCodeOf(error);
  }
}
