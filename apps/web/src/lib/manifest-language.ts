/**
 * The web app manifest in the console's language: the build writes one per language (vite.config.ts, which loads
 * this module, so it imports nothing of i18next), and the page links the one of the language it shows, so an
 * installed console is named and described in the user's language.
 */
import type { Language } from './i18n.ts';

/** Each language's manifest `lang` (BCP 47: `se` is the product's code for Swedish, sv, as htmlLangOf says). */
export const MANIFEST_LANGS = { en: 'en', fi: 'fi', se: 'sv' } as const satisfies Record<Language, string>;

const isLanguage = (language: string): language is Language => Object.hasOwn(MANIFEST_LANGS, language);

/** The manifest's address: the default (English) one vite-plugin-pwa links, `manifest.<language>.webmanifest` else. */
export const manifestPathOf = (language: Language): string =>
  language === 'en' ? '/manifest.webmanifest' : `/manifest.${language}.webmanifest`;

/** Points the page's manifest link at the language's manifest (a language without one keeps English). */
export const linkManifest = (language: string, doc: Document = document): void => {
  const link = doc.querySelector<HTMLLinkElement>('link[rel="manifest"]');
  const href = manifestPathOf(isLanguage(language) ? language : 'en');
  if (link && link.getAttribute('href') !== href) link.setAttribute('href', href);
};
