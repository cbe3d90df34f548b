import type { Deployment, Release } from '@trelliscms/core';

/** A release as the server answers it (state `draft` unless told). */
export function releaseFixture(name: string, extra: Partial<Release> = {}): Release {
  return {
    id: `release:${name}`,
    name,
    state: 'draft',
    includes: [],
    createdAt: '2026-05-01T08:00:00.000Z',
    ...extra,
  };
}

/** A deployment as the server answers it (`deploy:<id>`, of release:spring on env:prod unless told). */
export function deploymentFixture(
  id: string,
  status: Deployment['status'],
  extra: Partial<Deployment> = {},
): Deployment {
  return {
    id: `deploy:${id}`,
    status,
    validFrom: '2026-05-01T10:00:00.000Z',
    environmentId: 'env:prod',
    releaseId: 'release:spring',
    createdAt: '2026-05-01T10:00:00.000Z',
    ...extra,
  };
}
