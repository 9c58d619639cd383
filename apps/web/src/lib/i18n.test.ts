import { afterEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from './i18n.ts';

const detect = async () => (await createI18n()).resolvedLanguage;

/** The browser's language list (jsdom reports en-US); empty to let the html tag decide. */
const browserLanguages = (languages: string[]) => {
  vi.spyOn(navigator, 'languages', 'get').mockReturnValue(languages);
  vi.spyOn(navigator, 'language', 'get').mockReturnValue(languages[0] ?? '');
};

afterEach(() => {
  vi.restoreAllMocks();
  document.documentElement.lang = 'en';
});

describe('language detection (behaviour §1 order: lng, cookie, localStorage, sessionStorage, navigator, htmlTag)', () => {
  it('query string lng beats the cookie', async () => {
    window.history.replaceState(null, '', '/jobs?lng=fi');
    document.cookie = 'i18next=se; path=/';
    window.localStorage.setItem('i18nextLng', 'en');
    expect(await detect()).toBe('fi');
  });

  it('the i18next cookie beats local storage', async () => {
    document.cookie = 'i18next=se; path=/';
    window.localStorage.setItem('i18nextLng', 'fi');
    expect(await detect()).toBe('se');
  });

  it('local storage i18nextLng beats session storage', async () => {
    window.localStorage.setItem('i18nextLng', 'fi');
    window.sessionStorage.setItem('i18nextLng', 'se');
    expect(await detect()).toBe('fi');
  });

  it('session storage beats the browser languages', async () => {
    browserLanguages(['fi-FI']);
    window.sessionStorage.setItem('i18nextLng', 'se');
    expect(await detect()).toBe('se');
  });

  it('the browser languages beat the html tag; Swedish browsers get se', async () => {
    document.documentElement.lang = 'fi';
    browserLanguages(['sv-FI', 'en']);
    expect(await detect()).toBe('se');
  });

  it('the html tag decides last', async () => {
    browserLanguages([]);
    document.documentElement.lang = 'fi';
    expect(await detect()).toBe('fi');
  });

  it('falls back to en for a language it does not support', async () => {
    browserLanguages(['de-DE']);
    document.documentElement.lang = '';
    expect(await detect()).toBe('en');
  });

  it('caches the detected language in local storage only', async () => {
    window.history.replaceState(null, '', '/?lng=se');
    await detect();
    expect(window.localStorage.getItem('i18nextLng')).toBe('se');
    expect(window.sessionStorage.getItem('i18nextLng')).toBeNull();
    expect(document.cookie).not.toContain('i18next=');
  });

  it('marks the page Swedish (sv) for screen readers when se is chosen', async () => {
    const i18n = await createI18n({ language: 'se' });
    expect(document.documentElement.lang).toBe('sv');
    expect(i18n.t('nav.logout')).toBe('Logga ut');
    await i18n.changeLanguage('fi');
    expect(document.documentElement.lang).toBe('fi');
    expect(i18n.t('nav.logout')).toBe('Kirjaudu ulos');
  });

  it('caches the language it shows: a Finnish browser (fi-FI) is cached as fi', async () => {
    browserLanguages(['fi-FI', 'en-US']);
    expect(await detect()).toBe('fi');
    expect(window.localStorage.getItem('i18nextLng')).toBe('fi');
  });
});
