// Contracts of the settings backend (behaviour §3, §7).
import { z } from 'zod';
import { Text } from './common.ts';
import { defineRoute } from './route.ts';

/** Behaviour §3 "languages as [name, id] pairs"; the interface languages of behaviour §1 (en is the fallback). */
export const LanguageOption = z.tuple([z.string(), z.string()]);
export type LanguageOption = z.infer<typeof LanguageOption>;
export const LANGUAGES = [
  ['English', 'en'],
  ['Suomi', 'fi'],
  ['Svenska', 'se'],
] as const satisfies readonly (readonly [string, string])[];

/** Behaviour §3 "timezones as [name, offset] pairs": an IANA name and its current UTC offset, e.g. "+02:00". */
export const TimezoneOption = z.tuple([z.string(), z.string().regex(/^[+-]\d{2}:\d{2}$/)]);
export type TimezoneOption = z.infer<typeof TimezoneOption>;

/** Whether the runtime knows `name` as an IANA time zone. */
export const isTimeZone = (name: string): boolean => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
};

export const SETTINGS_MESSAGES = {
  language: `Language must be one of ${LANGUAGES.map(([, id]) => id).join(', ')}`,
  timezone: 'Timezone must be an IANA time zone name such as Europe/Helsinki',
} as const;

/**
 * Language ids are accepted in any case and stored uppercase, as the session user's default "EN" of behaviour §3 shows.
 */
export const StoredLanguage = z.enum(['EN', 'FI', 'SE']);
export type StoredLanguage = z.infer<typeof StoredLanguage>;

export const SaveSettingsInput = z.object({
  language: Text({ error: SETTINGS_MESSAGES.language })
    .trim()
    .toUpperCase()
    .pipe(z.enum(StoredLanguage.options, { error: SETTINGS_MESSAGES.language })),
  timezone: Text({ error: SETTINGS_MESSAGES.timezone })
    .trim()
    .min(1, SETTINGS_MESSAGES.timezone)
    .max(100, SETTINGS_MESSAGES.timezone)
    .refine(isTimeZone, SETTINGS_MESSAGES.timezone),
});
export type SaveSettingsInput = z.infer<typeof SaveSettingsInput>;

export const UserSettings = z.object({ language: StoredLanguage, timezone: z.string() });
export type UserSettings = z.infer<typeof UserSettings>;

export const listLanguages = defineRoute({
  method: 'GET',
  path: '/settings/language',
  summary: 'Interface languages as [name, id] pairs',
  tags: ['settings'],
  response: { 200: z.array(LanguageOption) },
});

export const listTimezones = defineRoute({
  method: 'GET',
  path: '/settings/timezones',
  summary: 'IANA time zones as [name, current UTC offset] pairs',
  tags: ['settings'],
  response: { 200: z.array(TimezoneOption) },
});

export const saveSettings = defineRoute({
  method: 'POST',
  path: '/settings/settings',
  summary: "Save the signed-in user's language and timezone; replies the saved settings in data",
  tags: ['settings'],
  body: SaveSettingsInput,
  response: { 200: z.object({ data: UserSettings }) },
});
