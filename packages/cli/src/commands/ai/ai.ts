import type { AiUsage } from '@trelliscms/core';
import { ExitCode, UsageError } from '../../errors';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** The source of a task: an item id or `--text`, exactly one. */
export function sourceOf(
  itemId: string | undefined,
  text: string | undefined,
): { itemId: string } | { text: string } {
  if ((itemId === undefined) === (text === undefined)) {
    throw new UsageError('Give an item id or --text, one of them.');
  }
  return itemId !== undefined ? { itemId } : { text: text! };
}

/** The line on stderr after a suggestion: which model answered and what it cost. */
function usageNote(out: Deps['out'], answer: { model: string; usage: AiUsage }): void {
  out.note(
    `${answer.model}: ${answer.usage.total} tokens (${answer.usage.prompt} prompt, ${answer.usage.completion} completion). A suggestion: nothing was stored.`,
  );
}

/** `cms ai seo <itemId> | --text`: a meta description. */
export async function aiSeo({
  site,
  out,
  itemId,
  text,
  maxLength,
}: Deps & { itemId?: string; text?: string; maxLength?: number }): Promise<number> {
  const answer = await site.ai.seoDescription({
    ...sourceOf(itemId, text),
    ...(maxLength ? { maxLength } : {}),
  });
  out.result(answer, () => answer.description);
  usageNote(out, answer);
  return ExitCode.ok;
}

/** `cms ai alt <assetId> | --image-url | --description`: alt text for an image. */
export async function aiAlt({
  site,
  out,
  assetId,
  url,
  description,
}: Deps & { assetId?: string; url?: string; description?: string }): Promise<number> {
  if (assetId === undefined && url === undefined && description === undefined) {
    throw new UsageError('Give an asset id, --image-url or --description.');
  }
  const answer = await site.ai.altText({
    ...(assetId ? { assetId } : {}),
    ...(url ? { imageUrl: url } : {}),
    ...(description ? { description } : {}),
  });
  out.result(answer, () => answer.alt);
  usageNote(out, answer);
  return ExitCode.ok;
}

/** `cms ai tags <itemId> | --text`: tags chosen from the site's existing tags. */
export async function aiTags({
  site,
  out,
  itemId,
  text,
  max,
}: Deps & { itemId?: string; text?: string; max?: number }): Promise<number> {
  const answer = await site.ai.suggestTags({ ...sourceOf(itemId, text), ...(max ? { max } : {}) });
  out.result(answer, () => [
    ...(answer.tags.length === 0 ? ['(no tag fits)'] : answer.tags.map((tag) => `${tag.id}  ${tag.label}`)),
    ...(answer.rejected.length > 0 ? [`not tags of the site (dropped): ${answer.rejected.join(', ')}`] : []),
  ]);
  usageNote(out, answer);
  return ExitCode.ok;
}

/** `cms ai summarize <itemId> | --text`: a summary. */
export async function aiSummarize({
  site,
  out,
  itemId,
  text,
  maxWords,
}: Deps & { itemId?: string; text?: string; maxWords?: number }): Promise<number> {
  const answer = await site.ai.summarize({ ...sourceOf(itemId, text), ...(maxWords ? { maxWords } : {}) });
  out.result(answer, () => answer.summary);
  usageNote(out, answer);
  return ExitCode.ok;
}

/**
 * `cms ai translate <itemId> --locale de [--apply]`: the item's translatable fields in the
 * locale, proposed; `--apply` stores them as its translation (PUT /api/locales/{code}/translations).
 */
export async function aiTranslate({
  site,
  out,
  itemId,
  locale,
  fields,
  apply,
}: Deps & { itemId: string; locale: string; fields?: string[]; apply: boolean }): Promise<number> {
  const answer = await site.ai.translate({
    itemId,
    locale,
    ...(fields && fields.length > 0 ? { fields } : {}),
  });
  if (apply) {
    await site.locales.setTranslations(answer.locale, answer.apply.body);
    out.result({ ...answer, applied: true }, () => [
      ...Object.entries(answer.fields).map(([name, value]) => `${name}: ${value}`),
      `Stored as the ${answer.locale} translation of ${itemId}.`,
    ]);
    out.note(`${answer.model}: ${answer.usage.total} tokens.`);
    return ExitCode.ok;
  }
  out.result(answer, () => [
    ...Object.entries(answer.fields).map(([name, value]) => `${name}: ${value}`),
    `Store it with: cms ai translate ${itemId} --locale ${locale} --apply (or cms locales translations set).`,
  ]);
  usageNote(out, answer);
  return ExitCode.ok;
}
