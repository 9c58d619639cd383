import i18next from 'i18next';
import type { BackendModule, i18n as I18n } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import type { DetectorOptions } from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import type en from '../locales/en.json';

/** Spec §1 and §9: en (fallback), fi, se. `se` is the product's code for Swedish. */
export const SUPPORTED_LANGUAGES = ['en', 'fi', 'se'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];
export const FALLBACK_LANGUAGE: Language = 'en';

const isSupported = (language: string): language is Language => (SUPPORTED_LANGUAGES as readonly string[]).includes(language);

/**
 * A detected tag as the product names it: the primary subtag when supported (fi-FI → fi, so the cache holds what is
 * shown), and Swedish (sv, sv-FI), which the product calls se.
 */
export const normaliseLanguage = (language: string): string => {
  const primary = language.toLowerCase().split(/[-_]/)[0] ?? '';
  if (primary === 'sv') return 'se';
  return isSupported(primary) ? primary : language;
};

/** Spec §1 detection order and cache, exactly. */
export const DETECTION: DetectorOptions = {
  order: ['querystring', 'cookie', 'localStorage', 'sessionStorage', 'navigator', 'htmlTag'],
  lookupQuerystring: 'lng',
  lookupCookie: 'i18next',
  lookupLocalStorage: 'i18nextLng',
  lookupSessionStorage: 'i18nextLng',
  caches: ['localStorage'],
  convertDetectedLanguage: (language) => normaliseLanguage(language),
};

/** BCP 47 tag for the html lang attribute: screen readers would read `se` as Northern Sami. */
export const htmlLangOf = (language: string): string => (language === 'se' ? 'sv' : language);

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
  }
}

type Translation = Record<string, unknown>;
const locales = import.meta.glob<{ default: Translation }>('../locales/*.json');

/** Each language is its own chunk, loaded on demand, so the initial bundle carries none it does not show. */
const localeBackend: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, _namespace, callback) {
    const load = locales[`../locales/${language}.json`];
    if (!load) {
      callback(new Error(`No translations for ${language}`), false);
      return;
    }
    load().then(
      (module) => {
        callback(null, module.default);
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)), false);
      },
    );
  },
};

/** A fresh i18next instance (one per app, one per test). Resolves once the detected language is loaded. */
export const createI18n = async (options: { language?: Language } = {}): Promise<I18n> => {
  const instance = i18next.createInstance();
  instance.use(localeBackend).use(initReactI18next);
  if (!options.language) instance.use(LanguageDetector);
  instance.on('languageChanged', (language) => {
    document.documentElement.lang = htmlLangOf(language);
  });
  await instance.init({
    lng: options.language,
    fallbackLng: FALLBACK_LANGUAGE,
    supportedLngs: [...SUPPORTED_LANGUAGES],
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    detection: DETECTION,
    interpolation: { escapeValue: false },
    returnNull: false,
    react: { useSuspense: false },
  });
  return instance;
};
