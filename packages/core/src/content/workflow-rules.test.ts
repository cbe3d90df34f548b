import { describe, expect, it } from 'vitest';
import { isTrellisError } from '../errors';
import type { Workflow } from '../schemas/workflows';
import {
  allowedTransitions,
  DEFAULT_WORKFLOW,
  effectiveState,
  planMove,
  planPublish,
  planUnpublish,
  workflowForType,
} from './workflow-rules';

const editorial: Workflow = {
  name: 'editorial',
  types: ['post'],
  initial: 'draft',
  states: [{ name: 'draft' }, { name: 'review' }, { name: 'approved' }, { name: 'published' }],
  transitions: [
    { name: 'submit', from: 'draft', to: 'review', roles: ['editor', 'admin'] },
    { name: 'reject', from: 'review', to: 'draft', roles: ['admin'], requireComment: true },
    { name: 'approve', from: 'review', to: 'approved', roles: ['admin'] },
    { name: 'publish', from: 'approved', to: 'published', roles: ['publisher', 'admin'] },
    { name: 'retract', from: 'published', to: 'draft' },
  ],
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (isTrellisError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('workflow rules', () => {
  it('picks the workflow naming the type, then a catch-all, then the default', () => {
    const catchAll: Workflow = { ...DEFAULT_WORKFLOW, name: 'all', types: undefined };
    expect(workflowForType([editorial], 'post').name).toBe('editorial');
    expect(workflowForType([editorial], 'page').name).toBe('default');
    expect(workflowForType([catchAll, editorial], 'post').name).toBe('editorial');
    expect(workflowForType([catchAll, editorial], 'page').name).toBe('all');
  });

  it('keeps the state in step with whether the item is live', () => {
    expect(effectiveState(editorial, { recorded: null, isLive: false })).toBe('draft');
    expect(effectiveState(editorial, { recorded: 'review', isLive: false })).toBe('review');
    expect(effectiveState(editorial, { recorded: 'review', isLive: true })).toBe('published');
    expect(effectiveState(editorial, { recorded: 'published', isLive: false })).toBe('draft');
    expect(effectiveState(editorial, { recorded: 'gone', isLive: false })).toBe('draft');
  });

  it('refuses a role the transition is not open to (403), a missing comment (400), a move not from here (409)', () => {
    const base = { workflow: editorial, itemId: 'post:a' };
    expect(planMove({ ...base, state: 'draft', role: 'editor', move: { to: 'review' } }).name).toBe('submit');
    expect(
      codeOf(() => planMove({ ...base, state: 'draft', role: 'publisher', move: { to: 'review' } })),
    ).toBe('workflow_transition_forbidden');
    expect(
      codeOf(() => planMove({ ...base, state: 'review', role: 'admin', move: { transition: 'reject' } })),
    ).toBe('workflow_comment_required');
    expect(
      planMove({ ...base, state: 'review', role: 'admin', move: { transition: 'reject', comment: 'typos' } })
        .to,
    ).toBe('draft');
    expect(
      codeOf(() => planMove({ ...base, state: 'draft', role: 'admin', move: { to: 'published' } })),
    ).toBe('workflow_transition_invalid');
  });

  it('makes publish the move into published, and unpublish a move out of it', () => {
    const base = { workflow: editorial, itemId: 'post:a' };
    expect(codeOf(() => planPublish({ ...base, state: 'draft', role: 'admin' }))).toBe(
      'workflow_transition_invalid',
    );
    expect(codeOf(() => planPublish({ ...base, state: 'approved', role: 'editor' }))).toBe(
      'workflow_transition_forbidden',
    );
    expect(planPublish({ ...base, state: 'approved', role: 'publisher' })?.name).toBe('publish');
    expect(planPublish({ ...base, state: 'published', role: 'publisher' })).toBeNull();
    expect(codeOf(() => planPublish({ ...base, state: 'published', role: 'editor' }))).toBe(
      'workflow_transition_forbidden',
    );
    expect(planUnpublish({ ...base, state: 'draft', role: 'editor' })).toBeNull();
    expect(planUnpublish({ ...base, state: 'published', role: 'publisher' })?.name).toBe('retract');
  });

  it('lets the default workflow do what publish and unpublish always did, for every role that could', () => {
    for (const role of ['owner', 'admin', 'editor', 'publisher'] as const) {
      const itemId = 'page:a';
      expect(planPublish({ workflow: DEFAULT_WORKFLOW, itemId, state: 'draft', role })?.name).toBe('publish');
      expect(planPublish({ workflow: DEFAULT_WORKFLOW, itemId, state: 'published', role })).toBeNull();
      expect(planUnpublish({ workflow: DEFAULT_WORKFLOW, itemId, state: 'published', role })?.name).toBe(
        'unpublish',
      );
    }
    expect(allowedTransitions(DEFAULT_WORKFLOW, 'draft', 'viewer')).toEqual([]);
    expect(allowedTransitions(DEFAULT_WORKFLOW, 'draft', 'publisher')).toEqual([
      { name: 'publish', label: 'Publish', to: 'published', requireComment: false, publishes: true },
    ]);
  });
});
