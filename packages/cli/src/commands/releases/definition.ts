import { ReleaseState } from '@trelliscms/core';
import { type Command, Option } from 'commander';
import { type CommandKit, subcommand, toNonNegativeInt, toPositiveInt } from '../command-kit';
import {
  releasesApprove,
  releasesCreate,
  releasesDelete,
  releasesInclude,
  releasesList,
  releasesShow,
  releasesSubmit,
} from './releases';

export interface ReleasesListFlags {
  state?: ReleaseState;
  limit?: number;
  offset?: number;
}

export interface ReleasesCreateFlags {
  description?: string;
  intent?: string;
  from?: string;
}

export interface ReleasesIncludeFlags {
  itemVersion?: number;
}

export interface ReleasesTransitionFlags {
  comment?: string;
}

export interface ReleasesApproveFlags extends ReleasesTransitionFlags {
  submit?: boolean;
}

/** `cms releases list|create|show|include|submit|approve|delete` */
export function defineReleasesCommands(program: Command, { action }: CommandKit): void {
  const releases = program
    .command('releases')
    .description(
      'Releases: bundles of exact item versions that go live together (draft -> pending -> approved -> cms deploy)',
    )
    .addHelpText(
      'after',
      `
A release names items at exact versions. Create it, include items, submit it (the reviews
run), approve it, then deploy it with cms deploy. <release> is release:<name> or the name.

Example:
  $ cms releases create spring-launch --description "Spring posts"
  $ cms releases include spring-launch post hello-world
  $ cms releases approve spring-launch --submit
  $ cms deploy spring-launch --env prod --at 2026-05-01T09:00:00Z`,
    );
  subcommand(releases, 'list', 'List releases, newest first', [
    'cms releases list --state approved',
    'cms releases list --limit 10 --json',
    'cms releases list --limit 50 --offset 50',
  ])
    .addOption(new Option('--state <state>', 'only releases in this state').choices(ReleaseState.options))
    .option('--limit <n>', 'how many (default 50, at most 500)', toPositiveInt)
    .option('--offset <n>', 'how many of the newest to skip', toNonNegativeInt)
    .action(
      action<ReleasesListFlags>(async (context, _args, options) =>
        releasesList({
          site: await context.site(),
          out: context.out,
          state: options.state,
          limit: options.limit,
          offset: options.offset,
        }),
      ),
    );
  subcommand(releases, 'create', 'Create a draft release', [
    'cms releases create spring-launch --description "Spring posts" --intent "launch the spring collection"',
    'cms releases create spring-fix --from spring-launch',
  ])
    .argument('<name>', 'release name: letters, digits, ., _ and - (its id is release:<name>)')
    .option('--description <text>', 'what the release holds')
    .option('--intent <text>', 'why it is made')
    .option('--from <release>', 'the release it is derived from')
    .action(
      action<ReleasesCreateFlags>(async (context, [name], options) =>
        releasesCreate({ site: await context.site(), out: context.out, name: name!, ...options }),
      ),
    );
  subcommand(releases, 'show', 'Show a release: its state, items at their versions, and reviews', [
    'cms releases show spring-launch',
  ])
    .argument('<release>', 'release:<name> or the name')
    .action(
      action(async (context, [release]) =>
        releasesShow({ site: await context.site(), out: context.out, release: release! }),
      ),
    );
  subcommand(
    releases,
    'include',
    "Add an item to a draft release at its current version (or --item-version n), with that version's hash",
    [
      'cms releases include spring-launch post hello-world',
      'cms releases include spring-launch post post:hello-world --item-version 3',
    ],
    '(--version is the version of cms itself; cms content versions <type> <id> lists the versions of an item.)',
  )
    .argument('<release>', 'release:<name> or the name (a draft)')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id <type>:<slug>, or the slug')
    .option(
      '--item-version <n>',
      'the version to include (default: the current one; see cms content versions)',
      toPositiveInt,
    )
    .action(
      action<ReleasesIncludeFlags>(async (context, [release, type, id], options) =>
        releasesInclude({
          site: await context.site(),
          out: context.out,
          release: release!,
          type: type!,
          id: id!,
          version: options.itemVersion,
        }),
      ),
    );
  subcommand(
    releases,
    'submit',
    'Submit a release for review (-> pending): the reviews run, and what would block a deploy is printed',
    'cms releases submit spring-launch --comment "ready for review"',
  )
    .argument('<release>', 'release:<name> or the name')
    .option('--comment <text>', 'recorded with the transition')
    .action(
      action<ReleasesTransitionFlags>(async (context, [release], options) =>
        releasesSubmit({
          site: await context.site(),
          out: context.out,
          release: release!,
          comment: options.comment,
        }),
      ),
    );
  subcommand(releases, 'approve', 'Approve a pending release (--submit: submit a draft and approve it)', [
    'cms releases approve spring-launch',
    'cms releases approve spring-launch --submit --comment "reviewed by Ana"',
  ])
    .argument('<release>', 'release:<name> or the name')
    .option('--submit', 'submit it first (draft -> pending -> approved)')
    .option('--comment <text>', 'recorded with the transition(s)')
    .action(
      action<ReleasesApproveFlags>(async (context, [release], options) =>
        releasesApprove({
          site: await context.site(),
          out: context.out,
          release: release!,
          comment: options.comment,
          submit: options.submit === true,
        }),
      ),
    );
  subcommand(
    releases,
    'delete',
    'Delete a draft release (alias rm)',
    'cms releases delete spring-fix',
    `Only a draft can be deleted (a pending one goes back with a transition to draft; a deployed one
is the record of what went live). A draft that was deployed once, or that releases derive
from, is refused (409 in_use) and those are listed.`,
  )
    .alias('rm')
    .argument('<release>', 'release:<name> or the name')
    .action(
      action(async (context, [release]) =>
        releasesDelete({ site: await context.site(), out: context.out, release: release! }),
      ),
    );
}
