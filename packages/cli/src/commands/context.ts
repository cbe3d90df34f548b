import type { SiteClient, TrellisClient } from '@trelliscms/sdk';
import type { CliIo } from '../io/cli-io';
import type { Output } from '../io/output';

/** What most commands get: the client, the output, and the I/O for files. */
export interface CommandDeps {
  client: TrellisClient;
  out: Output;
  io: CliIo;
}

/** What site-scoped commands get: the site client as well. */
export interface SiteCommandDeps extends CommandDeps {
  site: SiteClient;
}
