import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { auditVerify } from './audit';

export interface AuditVerifyFlags {
  graph?: string;
}

/** `cms audit verify` */
export function defineAuditCommands(program: Command, { action }: CommandKit): void {
  const audit = program.command('audit').description('Audit chain');
  subcommand(audit, 'verify', "Verify the site's audit hash chain (exit 1 when broken)", 'cms audit verify')
    .option('--graph <name>', "graph name (default: the site's graph)")
    .action(
      action<AuditVerifyFlags>(async (context, _args, options) =>
        auditVerify({ site: await context.site(), out: context.out, graph: options.graph }),
      ),
    );
}
