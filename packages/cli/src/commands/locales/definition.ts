import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import {
  localesAdd,
  localesList,
  localesRemove,
  localesSetDefault,
  translationsGet,
  translationsSet,
} from './locales';

/** `cms locales list|add|set-default|rm|translations get|set` */
export function defineLocalesCommands(program: Command, { action }: CommandKit): void {
  const locales = program
    .command('locales')
    .description(
      'Languages the site publishes in: one default, fallbacks, UI strings and translated field values (docs/locales.md)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ cms locales add en English\n  $ cms locales add fr Français\n  $ cms locales translations set fr nav.home=Accueil',
    );
  subcommand(locales, 'list', 'List the locales (the default marked)', [
    'cms locales list',
    'cms locales list --json',
  ]).action(action(async (context) => localesList({ site: await context.site(), out: context.out })));
  subcommand(
    locales,
    'add',
    'Add a locale (the first one is the default)',
    [
      'cms locales add en English',
      'cms locales add fr-CA "Français (Canada)" --fallback fr',
      'cms locales add de Deutsch --default',
    ],
    `A locale whose value is missing looks in its --fallback, that one's fallback, ..., then the
default locale. Types whose routePattern has {locale} get one page per locale.`,
  )
    .argument('<code>', 'BCP 47 code, e.g. fr or pt-BR')
    .argument('<name>', 'display name, e.g. Français')
    .option('--fallback <code>', 'the locale to look in for a missing value')
    .option('--default', 'make it the default locale')
    .option('--rtl', 'written right to left')
    .action(
      action<{ fallback?: string; default?: boolean; rtl?: boolean }>(
        async (context, [code, name], options) =>
          localesAdd({
            site: await context.site(),
            out: context.out,
            code: code!,
            name: name!,
            fallback: options.fallback,
            isDefault: options.default,
            direction: options.rtl ? 'rtl' : undefined,
          }),
      ),
    );
  subcommand(
    locales,
    'set-default',
    'Make a locale the default (the previous one stops being it)',
    'cms locales set-default fr',
  )
    .argument('<code>', 'locale code')
    .action(
      action(async (context, [code]) =>
        localesSetDefault({ site: await context.site(), out: context.out, code: code! }),
      ),
    );
  subcommand(
    locales,
    'rm',
    'Delete a locale and its translations (alias delete)',
    'cms locales rm fr-CA',
    'The default locale cannot be deleted while the site has others (set another default first), nor a locale another one falls back to.',
  )
    .alias('delete')
    .argument('<code>', 'locale code')
    .action(
      action(async (context, [code]) =>
        localesRemove({ site: await context.site(), out: context.out, code: code! }),
      ),
    );

  const translations = locales
    .command('translations')
    .description('UI strings (the t filter) and translated field values of a locale')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cms locales translations get fr\n  $ cms locales translations set fr nav.home=Accueil',
    );
  subcommand(translations, 'get', 'Show the stored translations of a locale', [
    'cms locales translations get fr',
    'cms locales translations get fr --item post:hello --json',
  ])
    .argument('<code>', 'locale code')
    .option('--item <id>', 'only this item’s field values')
    .action(
      action<{ item?: string }>(async (context, [code], options) =>
        translationsGet({ site: await context.site(), out: context.out, code: code!, itemId: options.item }),
      ),
    );
  subcommand(
    translations,
    'set',
    'Set UI strings and item field values of a locale (merged into the stored ones)',
    [
      'cms locales translations set fr nav.home=Accueil nav.blog=Blog',
      `cms locales translations set fr --item post:hello --fields '{"title":"Bonjour","slug":"bonjour"}'`,
      'cms locales translations set fr --file fr.json --replace',
    ],
    `key= (nothing after =) deletes a UI string; a null field value deletes it. Only fields the
type marks "translatable": true take values; the default locale's values are the items' own.
--file holds {"entries": {"nav.home": "Accueil"}, "items": [{"itemId": "post:hello", "fields": {...}}]}.`,
  )
    .argument('<code>', 'locale code')
    .argument('[pairs...]', 'UI strings as key=text')
    .option('--item <id>', 'the item whose --fields these are')
    .option('--fields <json>', 'translated field values of --item, as a JSON object')
    .option('--file <path>', 'a JSON body with entries and items')
    .option('--replace', 'replace the UI strings (and each named item’s fields) as a whole')
    .action(
      action<{ item?: string; fields?: string; file?: string; replace?: boolean }>(
        async (context, [code, pairs], options) =>
          translationsSet({
            site: await context.site(),
            out: context.out,
            io: context.io,
            code: code as string,
            pairs: (pairs as unknown as string[] | undefined) ?? [],
            itemId: options.item,
            fields: options.fields,
            file: options.file,
            replace: options.replace,
          }),
      ),
    );
}
