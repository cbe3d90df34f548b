import { type Command, Option } from 'commander';
import { type CommandKit, subcommand, toNonNegativeInt, toPositiveInt, toTime } from '../command-kit';
import { auditChecklist, auditLog, auditVerify } from './audit';

export interface AuditVerifyFlags {
  graph?: string;
}

export interface AuditLogFlags {
  actor?: string;
  action?: string;
  target?: string;
  since?: string;
  until?: string;
  limit?: number;
  offset?: number;
  order?: 'desc' | 'asc';
  graph?: string;
}

/** `cms audit verify|log|checklist` */
export function defineAuditCommands(program: Command, { action }: CommandKit): void {
  const audit = program.command('audit').description('Audit chain');
  subcommand(audit, 'verify', "Verify the site's audit hash chain (exit 1 when broken)", 'cms audit verify')
    .option('--graph <name>', "graph name (default: the site's graph)")
    .action(
      action<AuditVerifyFlags>(async (context, _args, options) =>
        auditVerify({ site: await context.site(), out: context.out, graph: options.graph }),
      ),
    );
  subcommand(
    audit,
    'log',
    "Read the site's audit log: who did what to which resource, when (admin only; newest first)",
    [
      'cms audit log --target post:hello',
      'cms audit log --actor user:ada --since -24h',
      'cms audit log --action content.*',
    ],
    '`--actor`, `--action` and `--target` match exactly, or as a prefix when they end in `*` (quote it for the shell). A user id as `--actor` also matches the API keys acting for that user.',
  )
    .option('--actor <id>', 'who: a user id (with their keys), a key id or system')
    .option('--action <action>', 'what, e.g. content.update or content.*')
    .option('--target <id>', 'which resource, e.g. post:hello or post:*')
    .option('--since <time>', 'from this time on (ISO with a zone, now, -2h)', toTime)
    .option('--until <time>', 'before this time', toTime)
    .option('--limit <n>', 'entries per page (default 50, at most 500)', toPositiveInt)
    .option('--offset <n>', 'skip this many entries', toNonNegativeInt)
    .addOption(new Option('--order <order>', 'newest (desc) or oldest (asc) first').choices(['desc', 'asc']))
    .option('--graph <name>', "graph name (default: the site's graph; the platform graph for the owner)")
    .action(
      action<AuditLogFlags>(async (context, _args, options) =>
        auditLog({
          site: await context.site(),
          out: context.out,
          query: {
            actor: options.actor,
            action: options.action,
            target: options.target,
            since: options.since,
            until: options.until,
            limit: options.limit,
            offset: options.offset,
            order: options.order,
            graph: options.graph,
          },
        }),
      ),
    );
  subcommand(
    audit,
    'checklist',
    "Show the site's verification checklist: each feature, its status and when it was last verified (admins)",
    'cms audit checklist',
  )
    .option('--graph <name>', "graph name (default: the site's graph)")
    .action(
      action<AuditVerifyFlags>(async (context, _args, options) =>
        auditChecklist({ site: await context.site(), out: context.out, graph: options.graph }),
      ),
    );
}
