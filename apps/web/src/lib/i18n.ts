import i18next from 'i18next';
import type { BackendModule, i18n as I18n } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import type { DetectorOptions } from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import type en from '../locales/en.json';

/** Behaviour §1 and §9: en (fallback), fi, se. `se` is the product's code for Swedish. */
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

const LANGUAGE_PARAMETER = 'lng';

/** Behaviour §1 detection order and cache, exactly. */
export const DETECTION: DetectorOptions = {
  order: ['querystring', 'cookie', 'localStorage', 'sessionStorage', 'navigator', 'htmlTag'],
  lookupQuerystring: LANGUAGE_PARAMETER,
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

/** The interface language of a profile's stored id (the server stores EN, FI, SE), or null for another id. */
export const languageOfProfile = (stored: string): Language | null => {
  const id = stored.toLowerCase();
  return SUPPORTED_LANGUAGES.find((language) => language === id) ?? null;
};

/** Instances whose language was named for this page: an address with ?lng=, or the caller (tests). */
const pinned = new WeakSet<I18n>();

/**
 * The profile's language is the truth on every device: applied at sign-in and on every load, and cached in local
 * storage as the detected choice, so the next visit starts in it. A page opened with ?lng= (behaviour §1's first
 * detection source) keeps that language until it is left.
 */
export const followProfileLanguage = async (i18n: I18n, stored: string): Promise<void> => {
  const language = languageOfProfile(stored);
  if (pinned.has(i18n) || !language || language === i18n.resolvedLanguage) return;
  await i18n.changeLanguage(language);
};

/**
 * A fresh i18next instance (one per app, one per test). Resolves once the detected language is loaded.
 * `language` names it instead of detecting it, and pins it unless `pinned` is false.
 */
export const createI18n = async (options: { language?: Language; pinned?: boolean } = {}): Promise<I18n> => {
  const instance = i18next.createInstance();
  const inAddress = new URLSearchParams(window.location.search).has(LANGUAGE_PARAMETER);
  if (options.pinned ?? (options.language !== undefined || inAddress)) pinned.add(instance);
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
