import type { Command } from 'commander';
import { type CommandKit, group, subcommand, toPositiveInt } from '../command-kit';
import { aiAlt, aiSeo, aiSummarize, aiTags, aiTranslate } from './ai';

/** `cms ai seo|alt|tags|summarize|translate` */
export function defineAiCommands(program: Command, { action }: CommandKit): void {
  const ai = group(
    program,
    'ai',
    'Assistant suggestions on the site content: SEO descriptions, alt text, tags, summaries, translations (docs/ai.md)',
    [
      'cms ai seo post:hello',
      'cms ai translate post:hello --locale de',
      'cms ai tags --text "A walk in the Alps"',
    ],
  );
  const details =
    'Nothing is stored: the suggestion is printed, with the model and its token usage on stderr. The server needs AI_URL (docs/ai.md).';
  subcommand(
    ai,
    'seo',
    'Draft an SEO meta description of an item or a text',
    ['cms ai seo post:hello', 'cms ai seo --text "…" --max-length 120'],
    details,
  )
    .argument('[itemId]', 'the item to describe (its text fields are read)')
    .option('--text <text>', 'describe this text instead of an item')
    .option('--max-length <n>', 'at most this many characters (default 160)', toPositiveInt)
    .action(
      action<{ text?: string; maxLength?: number }>(async (context, [itemId], options) =>
        aiSeo({
          site: await context.site(),
          out: context.out,
          itemId,
          text: options.text,
          maxLength: options.maxLength,
        }),
      ),
    );
  subcommand(
    ai,
    'alt',
    'Draft alt text for an image',
    [
      'cms ai alt asset:3f2a…',
      'cms ai alt --image-url https://example.org/photo.jpg',
      'cms ai alt --description "a red kite over a field"',
    ],
    `${details} A stored image (asset id) or --image-url needs a model that reads images.`,
  )
    .argument('[assetId]', 'a stored image (asset:<id>)')
    .option('--image-url <url>', 'an image URL the provider can fetch')
    .option('--description <text>', 'what the image shows, in your words')
    .action(
      action<{ imageUrl?: string; description?: string }>(async (context, [assetId], options) =>
        aiAlt({
          site: await context.site(),
          out: context.out,
          assetId,
          url: options.imageUrl,
          description: options.description,
        }),
      ),
    );
  subcommand(
    ai,
    'tags',
    "Suggest tags for an item or a text, from the site's existing tags",
    ['cms ai tags post:hello', 'cms ai tags --text "…" --max 3'],
    `${details} The tags are the items of the type \`tag\` and the values of \`tags\` string lists.`,
  )
    .argument('[itemId]', 'the item to tag')
    .option('--text <text>', 'tag this text instead of an item')
    .option('--max <n>', 'at most this many tags (default 5)', toPositiveInt)
    .action(
      action<{ text?: string; max?: number }>(async (context, [itemId], options) =>
        aiTags({
          site: await context.site(),
          out: context.out,
          itemId,
          text: options.text,
          max: options.max,
        }),
      ),
    );
  subcommand(
    ai,
    'summarize',
    'Summarise an item or a text',
    ['cms ai summarize post:hello', 'cms ai summarize --text "…" --max-words 30'],
    details,
  )
    .argument('[itemId]', 'the item to summarise')
    .option('--text <text>', 'summarise this text instead of an item')
    .option('--max-words <n>', 'about this many words at most (default 60)', toPositiveInt)
    .action(
      action<{ text?: string; maxWords?: number }>(async (context, [itemId], options) =>
        aiSummarize({
          site: await context.site(),
          out: context.out,
          itemId,
          text: options.text,
          maxWords: options.maxWords,
        }),
      ),
    );
  subcommand(
    ai,
    'translate',
    "Translate an item's translatable fields into one of the site's locales",
    [
      'cms ai translate post:hello --locale de',
      'cms ai translate post:hello --locale de --field title --apply',
    ],
    "Prints the proposed values; --apply stores them as the item's translation in that locale (PUT /api/locales/{code}/translations), as `cms locales translations set` would.",
  )
    .argument('<itemId>', 'the item to translate')
    .requiredOption('--locale <code>', "one of the site's locales (not its default)")
    .option('--field <name...>', 'only these translatable fields')
    .option('--apply', 'store the translation')
    .action(
      action<{ locale: string; field?: string[]; apply?: boolean }>(async (context, [itemId], options) =>
        aiTranslate({
          site: await context.site(),
          out: context.out,
          itemId: itemId!,
          locale: options.locale,
          fields: options.field,
          apply: options.apply === true,
        }),
      ),
    );
}
