import { describe, expect, it } from 'vitest';
import {
  AddIncludeBody,
  CreateReleaseBody,
  Deployment,
  DeploymentQueueQuery,
  DeployReleaseBody,
  DripPreviewBody,
  DripPreviewResponse,
  DripScheduleBody,
  Environment,
  ListDeploymentsQuery,
  ListReleasesQuery,
  Release,
  ReleaseTransitionBody,
  ReplayQuery,
  ReplayResponse,
  RollbackDeploymentBody,
  UpsertEnvironmentBody,
} from './release';

const include = {
  kind: 'content',
  versionableId: 'movie:alien',
  version: 2,
  hash: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  at: '2026-06-14T10:00:00Z',
};
const release = {
  id: 'release:summer-launch',
  name: 'summer-launch',
  description: 'The summer launch',
  intent: 'launch',
  derivedFromReleaseId: 'release:spring',
  state: 'draft',
  includes: [include],
};
const deployment = {
  id: 'deploy:01J0ABC',
  status: 'pending',
  validFrom: '2026-07-01T08:00:00Z',
  environmentId: 'env:prod',
  releaseId: 'release:summer-launch',
};

describe('environments', () => {
  it('accepts the spec Environment and an upsert body with defaults', () => {
    const environment = {
      id: 'env:prod',
      name: 'prod',
      order: 2,
      autoBuild: false,
      requiresApproval: true,
      publicUrlOverride: 'https://acme.example',
    };
    expect(Environment.parse(environment)).toEqual(environment);
    expect(Environment.safeParse({ ...environment, id: 'prod' }).success).toBe(false);
    expect(UpsertEnvironmentBody.parse({ name: 'prod' })).toEqual({
      name: 'prod',
      order: 0,
      autoBuild: false,
      requiresApproval: false,
    });
  });
});

describe('releases', () => {
  it('accepts the spec Release with includes and the four states', () => {
    expect(Release.parse(release)).toEqual(release);
    for (const state of ['draft', 'pending', 'approved', 'deployed']) {
      expect(Release.safeParse({ ...release, state }).success, state).toBe(true);
    }
    expect(Release.safeParse({ ...release, state: 'archived' }).success).toBe(false);
    expect(Release.safeParse({ ...release, id: 'summer-launch' }).success).toBe(false);
  });

  it('takes the create, include and transition bodies', () => {
    const { id: _id, state: _state, ...body } = release;
    expect(CreateReleaseBody.parse(body)).toEqual(body);
    expect(CreateReleaseBody.safeParse({ ...body, name: 'has space' }).success).toBe(false);
    expect(AddIncludeBody.parse(include)).toEqual(include);
    expect(AddIncludeBody.safeParse({ ...include, version: 0 }).success).toBe(false);
    expect(ReleaseTransitionBody.safeParse({ state: 'pending' }).success).toBe(true);
    expect(ReleaseTransitionBody.safeParse({ state: 'live' }).success).toBe(false);
  });

  it('lists by state with the spec default limit', () => {
    expect(ListReleasesQuery.parse({ state: 'approved' })).toEqual({
      state: 'approved',
      limit: 50,
      offset: 0,
    });
    expect(ListReleasesQuery.safeParse({ state: 'gone' }).success).toBe(false);
  });
});

describe('deployments', () => {
  it('accepts the spec Deployment with pending, deployed and superseded', () => {
    for (const status of ['pending', 'deployed', 'superseded']) {
      expect(Deployment.safeParse({ ...deployment, status }).success, status).toBe(true);
    }
    expect(Deployment.safeParse({ ...deployment, status: 'failed' }).success).toBe(true);
    expect(Deployment.safeParse({ ...deployment, status: 'live' }).success).toBe(false);
    expect(Deployment.safeParse({ ...deployment, id: '01J0ABC' }).success).toBe(false);
  });

  it('takes the deploy and rollback bodies', () => {
    const body = {
      environmentId: 'env:prod',
      intent: 'go',
      validFrom: '2026-07-01T08:00:00Z',
      skipReviewGate: false,
    };
    expect(DeployReleaseBody.parse(body)).toEqual(body);
    expect(DeployReleaseBody.safeParse({ ...body, environmentId: 'prod' }).success).toBe(false);
    expect(DeployReleaseBody.safeParse({ ...body, validFrom: 'tomorrow' }).success).toBe(false);
    expect(RollbackDeploymentBody.safeParse({ rollbackToReleaseId: 'release:spring' }).success).toBe(true);
    expect(RollbackDeploymentBody.safeParse({ rollbackToReleaseId: 'spring' }).success).toBe(false);
  });

  it('defaults deployments to 50 and the queue to 100', () => {
    expect(ListDeploymentsQuery.parse({ envId: 'env:prod' })).toEqual({
      envId: 'env:prod',
      limit: 50,
      offset: 0,
    });
    expect(DeploymentQueueQuery.parse({})).toEqual({ limit: 100, offset: 0 });
    expect(DeploymentQueueQuery.parse({ offset: '20' }).offset).toBe(20);
    expect(DeploymentQueueQuery.safeParse({ offset: '-1' }).success).toBe(false);
  });
});

describe('drip publishing', () => {
  const window = { windowStart: '2026-07-01T00:00:00Z', windowEnd: '2026-07-02T00:00:00Z' };

  it('previews with count or releaseIds, not both, not neither', () => {
    expect(DripPreviewBody.parse({ count: 5, ...window })).toEqual({ count: 5, ...window, pattern: 'even' });
    expect(
      DripPreviewBody.safeParse({
        releaseIds: ['release:a', 'release:b'],
        ...window,
        pattern: 'jittered',
        seed: 7,
      }).success,
    ).toBe(true);
    expect(DripPreviewBody.safeParse({ ...window }).success).toBe(false);
    expect(DripPreviewBody.safeParse({ count: 2, releaseIds: ['release:a'], ...window }).success).toBe(false);
    expect(DripPreviewBody.safeParse({ count: 2, ...window, pattern: 'weekly' }).success).toBe(false);
  });

  it('needs the window in order', () => {
    expect(
      DripPreviewBody.safeParse({ count: 2, windowStart: window.windowEnd, windowEnd: window.windowStart })
        .success,
    ).toBe(false);
  });

  it('schedules with releaseIds and an environment', () => {
    const body = { releaseIds: ['release:a'], ...window, environmentId: 'env:prod' };
    expect(DripScheduleBody.safeParse(body).success).toBe(true);
    expect(DripScheduleBody.safeParse({ ...body, environmentId: undefined }).success).toBe(false);
    expect(DripScheduleBody.safeParse({ count: 3, ...window, environmentId: 'env:prod' }).success).toBe(
      false,
    );
  });

  it('describes the preview answer', () => {
    const response = {
      schedule: { timestamps: ['2026-07-01T00:00:00Z'] },
      pairs: [{ releaseId: 'release:a', validFrom: '2026-07-01T00:00:00Z' }],
    };
    expect(DripPreviewResponse.parse(response)).toEqual(response);
  });
});

describe('replay', () => {
  it('needs envId and an ISO atTime', () => {
    expect(ReplayQuery.safeParse({ envId: 'env:prod', atTime: '2026-07-01T00:00:00Z' }).success).toBe(true);
    expect(ReplayQuery.safeParse({ atTime: '2026-07-01T00:00:00Z' }).success).toBe(false);
    expect(ReplayQuery.safeParse({ envId: 'env:prod', atTime: 'yesterday' }).success).toBe(false);
  });

  it('answers what was live, or nothing', () => {
    expect(ReplayResponse.safeParse({ deployment, release, includes: [include] }).success).toBe(true);
    expect(ReplayResponse.safeParse({ deployment: null, release: null, includes: [] }).success).toBe(true);
  });
});
