import { DripPattern } from '@trelliscms/core';
import { type Command, Option } from 'commander';
import { type CommandKit, subcommand, toDuration, toPositiveInt, toTime } from '../command-kit';
import { dripPreview, dripSchedule } from './drip';

export interface DripFlags {
  releases?: string;
  from: string;
  to: string;
  pattern?: DripPattern;
  seed?: string;
  maxJitter?: number;
  minSpacing?: number;
}

export interface DripPreviewFlags extends DripFlags {
  count?: number;
}

export interface DripScheduleFlags extends DripFlags {
  env: string;
}

const WINDOW_HELP = `--from and --to take ISO date-times with a zone, now, or +10m, -2h, +1d. "even" spreads
the times evenly over the window; "random" and "jittered" draw from a PRNG seeded by --seed:
the same seed gives the same times, so preview and schedule agree.`;

/** The options both subcommands take. */
function windowOptions(command: Command): Command {
  return command
    .requiredOption('--from <time>', 'window start', toTime)
    .requiredOption('--to <time>', 'window end', toTime)
    .addOption(
      new Option('--pattern <pattern>', 'how times spread (default even)').choices(DripPattern.options),
    )
    .option('--seed <seed>', 'seed of random and jittered (a whole number or any text)')
    .option(
      '--max-jitter <duration>',
      'jittered: the most a time moves from its even slot, e.g. 10m',
      toDuration,
    )
    .option('--min-spacing <duration>', 'the least time between two deployments, e.g. 5m', toDuration);
}

/** `cms drip preview|schedule` */
export function defineDripCommands(program: Command, { action }: CommandKit): void {
  const drip = program
    .command('drip')
    .description('Drip publishing: spread the deployments of many releases over a time window');
  windowOptions(
    subcommand(
      drip,
      'preview',
      'Plan the times a drip would use (and which release goes live when); writes nothing',
      [
        'cms drip preview --releases week1,week2,week3 --from 2026-05-04T09:00:00Z --to 2026-05-25T09:00:00Z',
        'cms drip preview --count 5 --from now --to +5d --pattern jittered --seed 42 --max-jitter 2h',
      ],
      WINDOW_HELP,
    )
      .option('--releases <list>', 'comma-separated releases, in the order they go live')
      .option('--count <n>', 'plan n times without releases', toPositiveInt),
  ).action(
    action<DripPreviewFlags>(async (context, _args, options) =>
      dripPreview({
        site: await context.site(),
        out: context.out,
        releases: options.releases,
        count: options.count,
        from: options.from,
        to: options.to,
        pattern: options.pattern,
        seed: options.seed,
        maxJitterMs: options.maxJitter,
        minSpacingMs: options.minSpacing,
      }),
    ),
  );
  windowOptions(
    subcommand(
      drip,
      'schedule',
      'Schedule one deployment per release at the planned times (all or none; each must be approved)',
      [
        'cms drip schedule --releases week1,week2,week3 --env prod --from 2026-05-04T09:00:00Z --to 2026-05-25T09:00:00Z',
        'cms drip schedule --releases a,b,c --env prod --from +1h --to +3d --pattern random --seed spring',
      ],
      WINDOW_HELP,
    )
      .requiredOption('--releases <list>', 'comma-separated releases, in the order they go live')
      .requiredOption('--env <name>', 'environment, e.g. prod'),
  ).action(
    action<DripScheduleFlags>(async (context, _args, options) =>
      dripSchedule({
        site: await context.site(),
        out: context.out,
        env: options.env,
        releases: options.releases,
        from: options.from,
        to: options.to,
        pattern: options.pattern,
        seed: options.seed,
        maxJitterMs: options.maxJitter,
        minSpacingMs: options.minSpacing,
      }),
    ),
  );
}
