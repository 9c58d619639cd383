import { afterEach, describe, expect, it } from 'vitest';
import { linkManifest, manifestPathOf } from './manifest-language.ts';

describe("the web app manifest in the console's language", () => {
  afterEach(() => {
    document.head.querySelector('link[rel="manifest"]')?.remove();
  });

  it('links the manifest of the language shown, and English for any other', () => {
    const link = document.createElement('link');
    link.rel = 'manifest';
    link.href = '/manifest.webmanifest';
    document.head.append(link);
    linkManifest('fi');
    expect(link.getAttribute('href')).toBe('/manifest.fi.webmanifest');
    linkManifest('se');
    expect(link.getAttribute('href')).toBe(manifestPathOf('se'));
    linkManifest('de');
    expect(link.getAttribute('href')).toBe('/manifest.webmanifest');
  });
});
