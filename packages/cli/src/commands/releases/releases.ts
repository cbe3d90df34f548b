import type { Release, ReleaseState } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import { fullId } from '../content/content';
import type { SiteCommandDeps } from '../context';
import { pageFooter } from '../page-footer';
import { toReleaseId } from '../release-ids';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** A release for a person: its state, includes and reviews (with their blocking findings). */
function releaseLines(release: Release): string[] {
  const lines = [`${release.id} (${release.state}): ${release.includes.length} item(s)`];
  if (release.description) lines.push(`  description: ${release.description}`);
  if (release.intent) lines.push(`  intent: ${release.intent}`);
  if (release.derivedFromReleaseId) lines.push(`  derived from: ${release.derivedFromReleaseId}`);
  if (release.includes.length > 0) {
    lines.push(
      '',
      ...table(
        release.includes.map((include) => ({ ...include, hash: include.hash.slice(0, 19) })),
        ['versionableId', 'version', 'hash', 'at'],
      ),
    );
  }
  const reviews = release.reviews ?? [];
  if (reviews.length > 0) {
    lines.push(
      '',
      ...table(
        reviews.map((review) => ({
          review: review.name,
          status: review.status,
          stale: review.stale ? 'stale' : '',
          findings: review.findings.map((finding) => `${finding.severity}: ${finding.message}`).join('; '),
        })),
        ['review', 'status', 'stale', 'findings'],
      ),
    );
  }
  return lines;
}

/** Blocking findings and stale required reviews: what the deploy's review gate will refuse. */
function gateWarnings(release: Release): string[] {
  const warnings: string[] = [];
  for (const review of release.reviews ?? []) {
    for (const finding of review.findings) {
      if (finding.severity === 'blocking') warnings.push(`  blocking: ${finding.message}`);
    }
    if (review.required && review.stale) warnings.push(`  stale: ${review.name} (an included item changed)`);
  }
  return warnings;
}

/** `cms releases list [--state s] [--limit n] [--offset n]` */
export async function releasesList({
  site,
  out,
  state,
  limit,
  offset,
}: Deps & { state?: ReleaseState; limit?: number; offset?: number }): Promise<number> {
  const page = await site.releases.listPage({ state, limit, offset });
  const releases = page.items;
  out.result(releases, () => [
    ...table(
      releases.map((release) => ({
        id: release.id,
        state: release.state,
        items: release.includes.length,
        updatedAt: release.updatedAt ?? release.createdAt ?? '',
        description: release.description ?? '',
      })),
      ['id', 'state', 'items', 'updatedAt', 'description'],
    ),
    pageFooter({ offset, shown: releases.length, total: page.total }),
  ]);
  return ExitCode.ok;
}

/** `cms releases create <name> [--description] [--intent] [--from release]` */
export async function releasesCreate({
  site,
  out,
  name,
  description,
  intent,
  from,
}: Deps & { name: string; description?: string; intent?: string; from?: string }): Promise<number> {
  const release = await site.releases.create({
    name: name.replace(/^release:/, ''),
    description,
    intent,
    derivedFromReleaseId: from === undefined ? undefined : toReleaseId(from),
  });
  out.result(release, () => [
    `Created ${release.id} (draft).`,
    `Next: cms releases include ${release.id} <type> <id>, then cms releases approve ${release.id} --submit`,
  ]);
  return ExitCode.ok;
}

/** `cms releases show <release>` */
export async function releasesShow({ site, out, release }: Deps & { release: string }): Promise<number> {
  const answer = await site.releases.get(toReleaseId(release));
  out.result(answer, () => releaseLines(answer));
  return ExitCode.ok;
}

/** `cms releases delete <release>`: a draft that was never deployed and that no release derives from. */
export async function releasesDelete({ site, out, release }: Deps & { release: string }): Promise<number> {
  const id = toReleaseId(release);
  await site.releases.delete(id);
  out.result({ ok: true, id }, () => `Deleted ${id}.`);
  return ExitCode.ok;
}

/** `cms releases include <release> <type> <id> [--version n]`: the item's head version, or `version`. */
export async function releasesInclude({
  site,
  out,
  release,
  type,
  id,
  version,
}: Deps & { release: string; type: string; id: string; version?: number }): Promise<number> {
  const item = fullId(type, id);
  const answer = await site.releases.includeItem(toReleaseId(release), type, item, { version });
  const include = answer.includes.findLast((entry) => entry.versionableId === item);
  out.result(
    answer,
    () =>
      `Included ${item}${include ? ` version ${include.version} (${include.hash.slice(0, 19)})` : ''} in ${answer.id}: ${answer.includes.length} item(s).`,
  );
  return ExitCode.ok;
}

/** `cms releases submit <release>`: to `pending`, which runs the reviews; prints what would block a deploy. */
export async function releasesSubmit({
  site,
  out,
  release,
  comment,
}: Deps & { release: string; comment?: string }): Promise<number> {
  const answer = await site.releases.transition(toReleaseId(release), { state: 'pending', comment });
  out.result(answer, () => {
    const warnings = gateWarnings(answer);
    const reviews = answer.reviews ?? [];
    const passed = reviews.filter((review) => review.status === 'passed').length;
    return [
      `Submitted ${answer.id} for review (pending): ${passed}/${reviews.length} review(s) passed.`,
      ...(warnings.length > 0 ? ['A deploy would be refused (review_gate):', ...warnings] : []),
      `Next: cms releases approve ${answer.id}`,
    ];
  });
  return ExitCode.ok;
}

/** `cms releases approve <release> [--submit]`: to `approved` (from `pending`, or from `draft` with --submit). */
export async function releasesApprove({
  site,
  out,
  release,
  comment,
  submit,
}: Deps & { release: string; comment?: string; submit: boolean }): Promise<number> {
  const id = toReleaseId(release);
  const answer = submit
    ? await site.releases.submitAndApprove(id, { comment })
    : await site.releases.transition(id, { state: 'approved', comment });
  out.result(answer, () => {
    const warnings = gateWarnings(answer);
    return [
      `Approved ${answer.id}${submit ? ' (submitted and reviewed first)' : ''}.`,
      ...(warnings.length > 0 ? ['A deploy would be refused (review_gate):', ...warnings] : []),
      `Next: cms deploy ${answer.id} --env prod`,
    ];
  });
  return ExitCode.ok;
}
