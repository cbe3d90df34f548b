import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import {
  workflowsCreate,
  workflowsDelete,
  workflowsList,
  workflowsShow,
  workflowsState,
  workflowsTransition,
} from './workflows';

/** `cms workflows list|show|create|rm|state|transition` */
export function defineWorkflowsCommands(program: Command, { io, action }: CommandKit): void {
  const workflows = program
    .command('workflows')
    .description('Editorial workflows: states, transitions and who may take them (docs/workflows.md)')
    .addHelpText(
      'after',
      `
Types no workflow names follow the built-in default (draft <-> published), which is what
"cms publish" always did. Publishing is the move into "published": a role the workflow does
not allow is refused by "cms publish" too.

Examples:
  $ cms workflows create editorial.json
  $ cms workflows state post:hello-world
  $ cms workflows transition post:hello-world review -m "ready for review"`,
    );
  subcommand(workflows, 'list', 'List the site’s workflows', 'cms workflows list').action(
    action(async (context) => workflowsList({ site: await context.site(), out: context.out })),
  );
  subcommand(workflows, 'show', 'Show a workflow’s states and transitions', 'cms workflows show editorial')
    .argument('<name>', 'workflow name')
    .action(
      action(async (context, [name]) =>
        workflowsShow({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
  subcommand(
    workflows,
    'create',
    'Create a workflow from a JSON file (admins only)',
    'cms workflows create editorial.json',
    `The file holds one definition:
  {"name": "editorial", "types": ["post"], "initial": "draft",
   "states": [{"name": "draft"}, {"name": "review"}, {"name": "published"}],
   "transitions": [
     {"name": "submit", "from": "draft", "to": "review", "roles": ["editor"]},
     {"name": "publish", "from": "review", "to": "published", "roles": ["admin"], "requireComment": true}]}`,
  )
    .argument('<file>', 'JSON file with the workflow definition')
    .action(
      action(async (context, [file]) =>
        workflowsCreate({ site: await context.site(), out: context.out, io, file: file! }),
      ),
    );
  subcommand(
    workflows,
    'rm',
    'Delete a workflow (alias delete; admins only)',
    'cms workflows rm editorial',
    'A workflow that items sit in (a state other than its initial and published ones) is refused (409 in_use) and the items are listed; move them first. Its types then follow the default workflow.',
  )
    .alias('delete')
    .argument('<name>', 'workflow name')
    .action(
      action(async (context, [name]) =>
        workflowsDelete({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
  subcommand(
    workflows,
    'state',
    'Show an item’s workflow state, the moves you may make and its history',
    'cms workflows state post:hello-world',
  )
    .argument('<id>', 'item id <type>:<slug>')
    .action(
      action(async (context, [id]) =>
        workflowsState({ site: await context.site(), out: context.out, id: id! }),
      ),
    );
  subcommand(
    workflows,
    'transition',
    'Move an item to another state of its workflow',
    [
      'cms workflows transition post:hello-world review -m "ready for review"',
      'cms workflows transition post:hello-world published --env staging',
    ],
    'Moving into a published state puts the item live (in --env, default the environment "cms publish" uses); moving out of it takes the item down. A role the transition is not open to is refused (403), a transition that needs a comment without -m is refused (400), a state not reachable from the current one is refused (409).',
  )
    .argument('<id>', 'item id <type>:<slug>')
    .argument('<state>', 'the state to move to')
    .option('-m, --comment <text>', 'why (some transitions require it)')
    .option('--env <env>', 'environment a move into published publishes to')
    .action(
      action<{ comment?: string; env?: string }>(async (context, [id, to], options) =>
        workflowsTransition({
          site: await context.site(),
          out: context.out,
          id: id!,
          to: to!,
          comment: options.comment,
          env: options.env,
        }),
      ),
    );
}
