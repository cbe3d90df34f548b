import { randomUUID } from 'node:crypto';
import {
  type Deployment,
  type Environment,
  type Include,
  type Release,
  type Review,
  sortableId,
} from '@trelliscms/core';
import type { GraphNode, Props } from '../engines/port';

/** Node labels of the release model in a site graph. */
export const ENVIRONMENT_LABEL = 'Environment';
export const RELEASE_LABEL = 'Release';
export const DEPLOYMENT_LABEL = 'Deployment';

/** The environments every site has even before one is stored (`env:dev`, `env:prod`). */
export const DEFAULT_ENVIRONMENTS: readonly Environment[] = [
  {
    id: 'env:dev',
    name: 'dev',
    order: 0,
    autoBuild: false,
    requiresApproval: false,
    publicUrlOverride: null,
  },
  {
    id: 'env:prod',
    name: 'prod',
    order: 1,
    autoBuild: false,
    requiresApproval: false,
    publicUrlOverride: null,
  },
];

/** A timestamp in the one form stored (UTC, milliseconds, `Z`), so stored ones compare as strings. */
export function isoTime(value: string | number | Date): string {
  return new Date(value).toISOString();
}

export function toEnvironment(node: GraphNode): Environment {
  const props = node.props;
  return {
    id: node.id,
    name: String(props.name),
    order: Number(props.order ?? 0),
    autoBuild: props.autoBuild === true,
    requiresApproval: props.requiresApproval === true,
    publicUrlOverride: typeof props.publicUrlOverride === 'string' ? props.publicUrlOverride : null,
  };
}

export function toRelease(node: GraphNode): Release {
  const props = node.props;
  return {
    id: node.id,
    name: String(props.name),
    description: typeof props.description === 'string' ? props.description : undefined,
    intent: typeof props.intent === 'string' ? props.intent : undefined,
    derivedFromReleaseId: typeof props.derivedFromReleaseId === 'string' ? props.derivedFromReleaseId : null,
    state: props.state as Release['state'],
    includes: (props.includes as Include[] | undefined) ?? [],
    reviews: (props.reviews as Review[] | undefined) ?? [],
    createdAt: typeof props.createdAt === 'string' ? props.createdAt : undefined,
    createdBy: typeof props.createdBy === 'string' ? props.createdBy : null,
    updatedAt: typeof props.updatedAt === 'string' ? props.updatedAt : undefined,
  };
}

/** The stored props of a release (everything but its id). */
export function releaseProps(release: Release): Props {
  const { id: _id, ...props } = release;
  return props;
}

export function toDeployment(node: GraphNode): Deployment {
  const props = node.props;
  const optionalString = (key: string) => (typeof props[key] === 'string' ? (props[key] as string) : null);
  return {
    id: node.id,
    status: props.status as Deployment['status'],
    validFrom: String(props.validFrom),
    environmentId: String(props.environmentId),
    releaseId: String(props.releaseId),
    intent: typeof props.intent === 'string' ? props.intent : undefined,
    createdAt: typeof props.createdAt === 'string' ? props.createdAt : undefined,
    createdBy: optionalString('createdBy'),
    deployedAt: optionalString('deployedAt'),
    supersededAt: optionalString('supersededAt'),
    supersededBy: optionalString('supersededBy'),
    rollbackOf: optionalString('rollbackOf'),
    auditSeq: typeof props.auditSeq === 'number' ? props.auditSeq : null,
    buildId: optionalString('buildId'),
    prebuiltBuildId: optionalString('prebuiltBuildId'),
    error: optionalString('error'),
    failedAt: optionalString('failedAt'),
  };
}

export function deploymentNode(deployment: Deployment): GraphNode {
  const { id, ...props } = deployment;
  return { id, labels: [DEPLOYMENT_LABEL], props };
}

/** A new deployment id: `deploy:<utc stamp>-<random>`, sortable by creation time. */
export function newDeploymentId(now: Date): string {
  return sortableId('deploy:', now, randomUUID().slice(0, 8));
}
