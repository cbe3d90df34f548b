import type { Workflow, WorkflowItemState } from '@trelliscms/sdk';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import { readJsonFile } from '../../io/read-json-file';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms workflows list` */
export async function workflowsList({ site, out }: Deps): Promise<number> {
  const workflows = await site.workflows.list();
  const rows = workflows.map((workflow) => ({
    name: workflow.name,
    types: workflow.types?.join(',') ?? '(every other type)',
    initial: workflow.initial,
    states: workflow.states.map((state) => state.name).join(' '),
    transitions: workflow.transitions.length,
  }));
  out.result(workflows, () =>
    rows.length > 0
      ? table(rows, ['name', 'types', 'initial', 'states', 'transitions'])
      : 'No workflows: every type follows the built-in default (draft ⇄ published).',
  );
  return ExitCode.ok;
}

function describeWorkflow(workflow: Workflow): string {
  const live = (name: string, published?: boolean) => published ?? name === 'published';
  const lines = [
    `Workflow ${workflow.name}${workflow.description ? `: ${workflow.description}` : ''}`,
    `Types: ${workflow.types?.join(', ') ?? 'every type no other workflow names'}`,
    `States: ${workflow.states
      .map(
        (state) =>
          `${state.name}${state.name === workflow.initial ? ' (initial)' : ''}${live(state.name, state.published) ? ' (live)' : ''}`,
      )
      .join(', ')}`,
    'Transitions:',
    ...workflow.transitions.map(
      (transition) =>
        `  ${transition.name ?? `${transition.from}-to-${transition.to}`}: ${transition.from} -> ${transition.to}  roles: ${transition.roles?.join(', ') ?? '(default)'}${transition.requireComment ? '  comment required' : ''}`,
    ),
  ];
  return lines.join('\n');
}

/** `cms workflows show <name>` */
export async function workflowsShow({ site, out, name }: Deps & { name: string }): Promise<number> {
  const workflow = await site.workflows.get(name);
  out.result(workflow, () => describeWorkflow(workflow));
  return ExitCode.ok;
}

/** `cms workflows create <file>`: the file holds one workflow definition (JSON). */
export async function workflowsCreate({
  site,
  out,
  io,
  file,
}: Deps & Pick<SiteCommandDeps, 'io'> & { file: string }): Promise<number> {
  const definition = (await readJsonFile(io.fs, io.cwd, file)) as Parameters<typeof site.workflows.create>[0];
  const workflow = await site.workflows.create(definition);
  out.result(workflow, () => `Created workflow ${workflow.name}.\n${describeWorkflow(workflow)}`);
  return ExitCode.ok;
}

/** `cms workflows rm <name>`: 409 `in_use` (the items printed) while items sit in its states. */
export async function workflowsDelete({ site, out, name }: Deps & { name: string }): Promise<number> {
  await site.workflows.delete(name);
  out.result({ ok: true, name }, () => `Deleted workflow ${name}.`);
  return ExitCode.ok;
}

function describeState(state: WorkflowItemState): string {
  const lines = [
    `${state.versionableId}: ${state.state} (workflow ${state.workflow}${state.live ? `, live in ${state.publishedEnvs.join(', ')}` : ''})`,
    state.allowed.length > 0
      ? `You can move it: ${state.allowed
          .map(
            (move) =>
              `${move.name} -> ${move.to}${move.requireComment ? ' (comment required)' : ''}${move.publishes === true ? ' (publishes)' : move.publishes === false ? ' (takes it down)' : ''}`,
          )
          .join('; ')}`
      : 'You cannot move it from here.',
  ];
  const history = state.history ?? [];
  if (history.length > 0) {
    lines.push('History (newest first):');
    for (const entry of history) {
      lines.push(
        `  ${entry.at}  ${entry.from ?? '-'} -> ${entry.to}  by ${entry.by ?? '?'}${entry.role ? ` (${entry.role})` : ''}${entry.comment ? `  "${entry.comment}"` : ''}`,
      );
    }
  }
  return lines.join('\n');
}

/** `cms workflows state <id>` */
export async function workflowsState({ site, out, id }: Deps & { id: string }): Promise<number> {
  const state = await site.workflows.state(id);
  out.result(state, () => describeState(state));
  return ExitCode.ok;
}

/** `cms workflows transition <id> <state> [-m comment] [--env env]` */
export async function workflowsTransition({
  site,
  out,
  id,
  to,
  comment,
  env,
}: Deps & {
  id: string;
  to: string;
  comment?: string | undefined;
  env?: string | undefined;
}): Promise<number> {
  const moved = await site.workflows.transition(id, {
    to,
    ...(comment !== undefined ? { comment } : {}),
    ...(env !== undefined ? { env } : {}),
  });
  out.result(
    moved,
    () =>
      `Moved ${id}: ${moved.transition.from ?? '-'} -> ${moved.transition.to}${moved.state.live ? ` (live in ${moved.state.publishedEnvs.join(', ')})` : ''}.`,
  );
  return ExitCode.ok;
}
