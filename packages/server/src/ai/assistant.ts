import {
  type AiAltTextBody,
  type AiAltTextResponse,
  type AiSeoDescriptionBody,
  type AiSeoDescriptionResponse,
  type AiSuggestTagsBody,
  type AiSuggestTagsResponse,
  type AiSummarizeBody,
  type AiSummarizeResponse,
  type AiTag,
  type AiTranslateBody,
  type AiTranslateResponse,
  STRING_FIELD_TYPES,
  type StoredContentType,
  TrellisError,
} from '@trelliscms/core';
import { typeOfId } from '../content/item-record';
import { getItem, listItems } from '../content/item-repository';
import { findType, getTypeForRead, listTypes } from '../content/type-repository';
import type { GraphReader } from '../engines/port';
import type { MediaFiles } from '../media/media-files';
import { assetNodeId, MEDIA_LABEL } from '../media/media-store';
import { listLocales } from '../site-resources/locales';
import type { ChatContentPart, ChatMessage, ChatProvider } from './chat-provider';

/** The most source text sent to the model, in characters (a long item is cut). */
const MAX_SOURCE_CHARS = 12_000;
/** The largest stored image sent to the model inline (a `data:` URL), in bytes. */
const MAX_INLINE_IMAGE_BYTES = 4 * 1024 * 1024;
/** The most tags offered to the model to choose from. */
const MAX_TAG_CHOICES = 500;

/** What every task needs: the site graph to read, the provider to ask, where asset files are. */
export interface AssistantContext {
  graph: GraphReader;
  provider: ChatProvider;
  files: MediaFiles;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

const SYSTEM =
  'You are an editorial assistant inside a content management system. Answer only with what is asked, without preamble, quotes or explanations.';

/** A model's plain answer, tidied: trimmed, without wrapping quotes or a `Label:` prefix. */
export function cleanText(text: string): string {
  let clean = text.trim();
  clean = clean.replace(/^(description|summary|alt text|alt)\s*:\s*/i, '');
  if (/^(["'“‘]).*(["'”’])$/s.test(clean)) clean = clean.slice(1, -1).trim();
  return clean;
}

/** `text` cut to at most `max` characters at a word boundary. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const space = head.lastIndexOf(' ');
  return (space > max * 0.6 ? head.slice(0, space) : head).replace(/[\s,;:–-]+$/, '');
}

/**
 * The JSON object in a model's answer: the whole answer, or the first `{…}` in it (models
 * wrap JSON in prose or code fences). 502 `ai_provider_failed` when there is none.
 */
export function parseJsonAnswer(text: string): Record<string, unknown> {
  const candidates = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced?.[1]) candidates.push(fenced[1].trim());
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
  for (const candidate of candidates) {
    try {
      const value = JSON.parse(candidate);
      if (value && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // next candidate
    }
  }
  throw TrellisError.of('ai_provider_failed', {
    detail: 'the model did not answer the JSON object asked for',
  });
}

function stripHtml(value: string): string {
  return value
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** An item's type (404 when the id names no type or no item) and its record. */
async function readItem(graph: GraphReader, itemId: string) {
  const typeName = typeOfId(itemId);
  const type = await findType(graph, typeName);
  if (!type) throw TrellisError.of('not_found', { resource: `Item \`${itemId}\`` });
  const { record } = await getItem({ graph, type: await getTypeForRead(graph, typeName), id: itemId });
  return { type, record };
}

/** The text of an item's text-like fields, one `label: value` line each, in the type's field order. */
function itemText(type: StoredContentType, fields: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const field of type.fields) {
    const value = fields[field.name];
    const label = field.label ?? field.name;
    if (
      typeof value === 'string' &&
      value.trim() !== '' &&
      (STRING_FIELD_TYPES.includes(field.type) || field.type === 'enum')
    ) {
      lines.push(`${label}: ${field.type === 'richtext' ? stripHtml(value) : value}`);
    } else if (Array.isArray(value) && field.type === 'stringlist' && value.length > 0) {
      lines.push(`${label}: ${value.join(', ')}`);
    }
  }
  return lines.join('\n');
}

/** The source text of a task: the given text, or the item's text fields (400 when it has none). */
async function sourceText(graph: GraphReader, body: { itemId?: string; text?: string }): Promise<string> {
  if (body.text !== undefined) return body.text.slice(0, MAX_SOURCE_CHARS);
  const { type, record } = await readItem(graph, body.itemId!);
  const text = itemText(type, record.fields);
  if (text === '') {
    throw TrellisError.of('validation_failed', {
      detail: `${body.itemId} has no text field with a value to work from; send \`text\` instead`,
    });
  }
  return text.slice(0, MAX_SOURCE_CHARS);
}

const user = (content: string | ChatContentPart[]): ChatMessage => ({ role: 'user', content });
const system = (content: string): ChatMessage => ({ role: 'system', content });

/** POST /api/ai/seo-description: a meta description of at most `maxLength` characters. */
export async function seoDescription(
  context: AssistantContext,
  body: AiSeoDescriptionBody,
): Promise<AiSeoDescriptionResponse> {
  const maxLength = body.maxLength ?? 160;
  const text = await sourceText(context.graph, body);
  const answer = await context.provider.complete([
    system(SYSTEM),
    user(
      `Write an SEO meta description of at most ${maxLength} characters for the page below. One or two plain sentences in the language of the page, no quotes, no hashtags.\n\n---\n${text}`,
    ),
  ]);
  return { description: cut(cleanText(answer.content), maxLength), model: answer.model, usage: answer.usage };
}

/** POST /api/ai/summarize: a summary of about `maxWords` words. */
export async function summarize(
  context: AssistantContext,
  body: AiSummarizeBody,
): Promise<AiSummarizeResponse> {
  const maxWords = body.maxWords ?? 60;
  const text = await sourceText(context.graph, body);
  const answer = await context.provider.complete(
    [
      system(SYSTEM),
      user(
        `Summarise the text below in at most ${maxWords} words, in its own language, as plain prose.\n\n---\n${text}`,
      ),
    ],
    { maxTokens: Math.min(2000, maxWords * 4 + 50) },
  );
  return { summary: cleanText(answer.content), model: answer.model, usage: answer.usage };
}

/**
 * POST /api/ai/alt-text: alt text for an image — a stored asset (sent to the model inline as a
 * `data:` URL), an image URL the provider fetches itself, and/or a description of it.
 */
export async function altText(context: AssistantContext, body: AiAltTextBody): Promise<AiAltTextResponse> {
  const parts: ChatContentPart[] = [];
  const notes: string[] = [];
  if (body.assetId !== undefined) {
    const node = await context.graph.getNode(assetNodeId(body.assetId));
    if (!node?.labels.includes(MEDIA_LABEL))
      throw TrellisError.of('not_found', { resource: `Asset \`${body.assetId}\`` });
    const mimetype = String(node.props.mimetype);
    if (!mimetype.startsWith('image/')) {
      throw TrellisError.of('validation_failed', { detail: `${body.assetId} is not an image (${mimetype})` });
    }
    notes.push(`File name: ${String(node.props.filename)}`);
    const bytes = Number(node.props.bytes);
    if (bytes <= MAX_INLINE_IMAGE_BYTES) {
      const file = await context.files.get(String(node.props.url).split('/').pop()!);
      const content = file ? await readAll(file.body).catch(() => null) : null;
      if (content)
        parts.push({
          type: 'image_url',
          image_url: { url: `data:${mimetype};base64,${content.toString('base64')}` },
        });
    }
  }
  if (body.imageUrl !== undefined) parts.push({ type: 'image_url', image_url: { url: body.imageUrl } });
  if (body.description !== undefined)
    notes.push(`What the image shows, as described by the editor: ${body.description}`);
  const instruction = `Write the alt text for this image on a web page: one short sentence (at most 125 characters) describing what it shows for someone who cannot see it. Do not start with "Image of".${notes.length > 0 ? `\n\n${notes.join('\n')}` : ''}`;
  const answer = await context.provider.complete(
    [system(SYSTEM), user(parts.length > 0 ? [{ type: 'text', text: instruction }, ...parts] : instruction)],
    { maxTokens: 200 },
  );
  return { alt: cut(cleanText(answer.content), 250), model: answer.model, usage: answer.usage };
}

/**
 * The site's existing tags: the items of a content type named `tag` (id and name), then the
 * values of every `stringlist` field named `tags` (the first items of each type).
 */
export async function siteTags(graph: GraphReader): Promise<AiTag[]> {
  const tags: AiTag[] = [];
  const seen = new Set<string>();
  const types = await listTypes(graph);
  const tagType = types.find((type) => type.name === 'tag');
  if (tagType) {
    const { items } = await listItems({ graph, type: tagType, limit: MAX_TAG_CHOICES });
    for (const item of items) {
      const fields = item.fields as Record<string, unknown>;
      const label = [fields.name, fields.title, fields.label, fields.slug].find(
        (value): value is string => typeof value === 'string' && value !== '',
      );
      tags.push({ id: item.id, label: label ?? item.id.slice(item.id.indexOf(':') + 1), source: 'item' });
      seen.add(item.id.toLowerCase());
    }
  }
  for (const type of types) {
    const field = type.fields.find(
      (candidate) => candidate.name === 'tags' && candidate.type === 'stringlist',
    );
    if (!field) continue;
    const { items } = await listItems({ graph, type, limit: 1000 });
    for (const item of items) {
      const values = (item.fields as Record<string, unknown>).tags;
      if (!Array.isArray(values)) continue;
      for (const value of values) {
        if (typeof value !== 'string' || value === '' || seen.has(value.toLowerCase())) continue;
        seen.add(value.toLowerCase());
        tags.push({ id: value, label: value, source: 'value' });
      }
    }
  }
  return tags.slice(0, MAX_TAG_CHOICES);
}

/**
 * POST /api/ai/suggest-tags: the model chooses among the site's existing tags only; a name it
 * answers that is not one of them is dropped (listed in `rejected`). 400 when the site has no tags.
 */
export async function suggestTags(
  context: AssistantContext,
  body: AiSuggestTagsBody,
): Promise<AiSuggestTagsResponse> {
  const max = body.max ?? 5;
  const choices = await siteTags(context.graph);
  if (choices.length === 0) {
    throw TrellisError.of('validation_failed', {
      detail:
        'the site has no tags to choose from: create items of a content type `tag`, or give items a stringlist field `tags`',
    });
  }
  const text = await sourceText(context.graph, body);
  const list = choices
    .map((tag) => (tag.id === tag.label ? `- ${tag.id}` : `- ${tag.id} (${tag.label})`))
    .join('\n');
  const answer = await context.provider.complete(
    [
      system(SYSTEM),
      user(
        `Choose at most ${max} tags for the content below, ONLY from this list (answer their ids exactly as written, before any parentheses):\n${list}\n\nAnswer a JSON object {"tags": ["<id>", ...]}, most fitting first; an empty list when none fits.\n\n---\n${text}`,
      ),
    ],
    { json: true, maxTokens: 300 },
  );
  const named = parseJsonAnswer(answer.content).tags;
  if (!Array.isArray(named)) {
    throw TrellisError.of('ai_provider_failed', { detail: 'the model answered no `tags` list' });
  }
  const byKey = new Map<string, AiTag>();
  for (const tag of choices) {
    byKey.set(tag.id.toLowerCase(), tag);
    if (!byKey.has(tag.label.toLowerCase())) byKey.set(tag.label.toLowerCase(), tag);
  }
  const tags: AiTag[] = [];
  const rejected: string[] = [];
  for (const name of named) {
    if (typeof name !== 'string') continue;
    const tag = byKey.get(name.trim().toLowerCase());
    if (!tag) rejected.push(name);
    else if (!tags.includes(tag) && tags.length < max) tags.push(tag);
  }
  return { tags, rejected, model: answer.model, usage: answer.usage };
}

/**
 * POST /api/ai/translate: the item's translatable text fields translated from the site's
 * default locale into `locale`. 400 when `locale` is not one of the site's locales (or is the
 * default), or the item has no translatable text to translate. Nothing is stored: the answer's
 * `apply` is the PUT that stores the proposal.
 */
export async function translate(
  context: AssistantContext,
  body: AiTranslateBody,
): Promise<AiTranslateResponse> {
  const locales = await listLocales(context.graph);
  const target = locales.find((locale) => locale.code === body.locale);
  if (!target) {
    throw TrellisError.of('validation_failed', {
      detail:
        locales.length === 0
          ? `the site has no locales; add ${body.locale} with POST /api/locales first`
          : `${body.locale} is not a locale of this site (it has ${locales.map((locale) => locale.code).join(', ')})`,
    });
  }
  const source = locales.find((locale) => locale.default) ?? null;
  if (target.default) {
    throw TrellisError.of('validation_failed', {
      detail: `${body.locale} is the site's default locale: the item's own values are in it`,
    });
  }
  const { type, record } = await readItem(context.graph, body.itemId);
  const translatable = type.fields.filter(
    (field) => field.translatable === true && STRING_FIELD_TYPES.includes(field.type),
  );
  if (body.fields) {
    const unknown = body.fields.filter((name) => !translatable.some((field) => field.name === name));
    if (unknown.length > 0) {
      throw TrellisError.of('validation_failed', {
        detail: `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a translatable text field of ${type.name}`,
      });
    }
  }
  const values: Record<string, string> = {};
  for (const field of translatable) {
    if (body.fields && !body.fields.includes(field.name)) continue;
    const value = record.fields[field.name];
    if (typeof value === 'string' && value.trim() !== '') values[field.name] = value;
  }
  if (Object.keys(values).length === 0) {
    throw TrellisError.of('validation_failed', {
      detail: `${body.itemId} has no translatable text field with a value (mark fields \`translatable: true\` on ${type.name})`,
    });
  }
  const from = source ? `${source.name ?? source.code} (${source.code})` : 'its language';
  const into = `${target.name ?? target.code} (${target.code})`;
  const answer = await context.provider.complete(
    [
      system(SYSTEM),
      user(
        `Translate the values of this JSON object from ${from} into ${into}. Keep the keys, any Markdown or HTML markup, URLs and placeholders such as {{ name }} unchanged. Answer only the JSON object with the same keys.\n\n${JSON.stringify(values, null, 2)}`,
      ),
    ],
    { json: true, maxTokens: 4000 },
  );
  const translated = parseJsonAnswer(answer.content);
  const fields: Record<string, string> = {};
  for (const name of Object.keys(values)) {
    const value = translated[name];
    if (typeof value === 'string' && value.trim() !== '') fields[name] = value;
  }
  if (Object.keys(fields).length === 0) {
    throw TrellisError.of('ai_provider_failed', {
      detail: 'the model answered none of the fields asked for',
    });
  }
  return {
    itemId: body.itemId,
    locale: body.locale,
    sourceLocale: source?.code ?? null,
    fields,
    apply: {
      method: 'PUT',
      path: `/api/locales/${body.locale}/translations`,
      body: { items: [{ itemId: body.itemId, fields }] },
    },
    model: answer.model,
    usage: answer.usage,
  };
}
