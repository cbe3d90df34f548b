import { describe, expect, it } from 'vitest';
import { type DeploymentTimelineEntry, liveDeploymentAt } from './live-deployment';

const t = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

describe('liveDeploymentAt', () => {
  const d1: DeploymentTimelineEntry = {
    id: 'deploy:1',
    status: 'deployed',
    validFrom: t(10),
    createdAt: t(0),
  };
  const d2: DeploymentTimelineEntry = {
    id: 'deploy:2',
    status: 'superseded',
    validFrom: t(20),
    supersededAt: t(30),
    createdAt: t(1),
  };
  const d3: DeploymentTimelineEntry = {
    id: 'deploy:3',
    status: 'deployed',
    validFrom: t(30),
    createdAt: t(30),
  };
  const d4: DeploymentTimelineEntry = {
    id: 'deploy:4',
    status: 'pending',
    validFrom: t(50),
    createdAt: t(31),
  };
  const deployments = [d4, d3, d2, d1];
  const at = (minute: number) => liveDeploymentAt({ deployments, at: new Date(t(minute)) })?.id ?? null;

  it('answers null before the first validFrom', () => {
    expect(at(5)).toBeNull();
  });

  it('answers the latest validFrom at or before the time', () => {
    expect(at(10)).toBe('deploy:1');
    expect(at(19)).toBe('deploy:1');
    expect(at(25)).toBe('deploy:2');
  });

  it('drops a rolled-back deployment from its supersededAt on', () => {
    expect(at(30)).toBe('deploy:3');
    expect(liveDeploymentAt({ deployments: [d1, d2], at: new Date(t(35)) })?.id).toBe('deploy:1');
  });

  it('counts a scheduled deployment from its validFrom', () => {
    expect(at(49)).toBe('deploy:3');
    expect(at(50)).toBe('deploy:4');
  });

  it('breaks a validFrom tie by creation time', () => {
    const a = { id: 'deploy:a', status: 'deployed' as const, validFrom: t(10), createdAt: t(2) };
    const b = { id: 'deploy:b', status: 'deployed' as const, validFrom: t(10), createdAt: t(1) };
    expect(liveDeploymentAt({ deployments: [a, b], at: new Date(t(11)) })?.id).toBe('deploy:a');
  });

  it('does not count a deployment dated in the past before it was created', () => {
    const backdated = { id: 'deploy:late', status: 'deployed' as const, validFrom: t(0), createdAt: t(40) };
    expect(liveDeploymentAt({ deployments: [d1, backdated], at: new Date(t(20)) })?.id).toBe('deploy:1');
    expect(liveDeploymentAt({ deployments: [d1, backdated], at: new Date(t(40)) })?.id).toBe('deploy:late');
  });
});
