import { describe, expect, it } from 'vitest';
import { localeChain, localeSetProblems, localizedFields, publishedLocales, translateKey } from './locales';

const locales = [
  { code: 'en', default: true },
  { code: 'fr', fallback: null },
  { code: 'fr-CA', fallback: 'fr' },
  { code: 'de', enabled: false },
];

describe('locale rules', () => {
  it('chains a locale through its fallbacks to the default', () => {
    expect(localeChain(locales, 'fr-CA')).toEqual(['fr-CA', 'fr', 'en']);
    expect(localeChain(locales, 'en')).toEqual(['en']);
    // a cycle ends the chain
    expect(
      localeChain(
        [
          { code: 'a', fallback: 'b' },
          { code: 'b', fallback: 'a', default: true },
        ],
        'a',
      ),
    ).toEqual(['a', 'b']);
  });

  it('publishes enabled locales, the default first', () => {
    expect(publishedLocales(locales).map((l) => l.code)).toEqual(['en', 'fr', 'fr-CA']);
  });

  it('requires exactly one default, known fallbacks and no cycle', () => {
    expect(localeSetProblems(locales)).toEqual([]);
    expect(localeSetProblems([{ code: 'en' }])).toEqual(['one locale must be the default (`default: true`)']);
    expect(
      localeSetProblems([
        { code: 'en', default: true },
        { code: 'fr', default: true },
      ])[0],
    ).toMatch(/only one/);
    expect(localeSetProblems([{ code: 'en', default: true, fallback: 'xx' }])[0]).toMatch(/not a locale/);
    expect(
      localeSetProblems([
        { code: 'en', default: true },
        { code: 'a', fallback: 'b' },
        { code: 'b', fallback: 'a' },
      ]).some((p) => p.includes('cycle')),
    ).toBe(true);
  });

  it('takes each translatable field from the first locale of the chain that has it', () => {
    const fields = { title: 'Hello', body: 'Text', price: 3 };
    const translations = { fr: { title: 'Bonjour' }, 'fr-CA': { body: 'Texte' } };
    const at = (code: string) =>
      localizedFields({
        fields,
        translations,
        translatable: ['title', 'body'],
        chain: localeChain(locales, code),
        defaultCode: 'en',
      });
    expect(at('fr-CA')).toEqual({ title: 'Bonjour', body: 'Texte', price: 3 });
    expect(at('fr')).toEqual({ title: 'Bonjour', body: 'Text', price: 3 });
    expect(at('en')).toBe(fields);
  });

  it('translates UI strings with fallback', () => {
    const entries = new Map<string, Record<string, string>>([
      ['en', { 'nav.home': 'Home', 'nav.about': 'About' }],
      ['fr', { 'nav.home': 'Accueil' }],
    ]);
    expect(translateKey('nav.home', ['fr', 'en'], entries)).toBe('Accueil');
    expect(translateKey('nav.about', ['fr', 'en'], entries)).toBe('About');
    expect(translateKey('nav.none', ['fr', 'en'], entries)).toBeNull();
  });
});
