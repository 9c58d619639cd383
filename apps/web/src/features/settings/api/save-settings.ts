import { useMutation, useQueryClient } from '@tanstack/react-query';
import { saveSettings } from '@uvd/contracts';
import type { SaveSettingsInput, UserSettings } from '@uvd/contracts';
import type { z } from 'zod';
import { useTranslation } from 'react-i18next';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { useAuthClient } from '../../../lib/auth/auth-context.tsx';
import { languageOfProfile } from '../../../lib/i18n.ts';
import { toast } from '../../../lib/toast.ts';

/** What the form sends: the language id in any case (the server uppercases it). */
export type SettingsBody = z.input<typeof SaveSettingsInput>;

export const postSettings = async (api: ApiClient, body: SettingsBody): Promise<UserSettings> =>
  (await api.request(saveSettings, { body })).data;

/**
 * Saves language and timezone, then shows the interface in the saved language and re-reads the session user, so
 * every date on screen uses the new timezone.
 */
export const useSaveSettings = () => {
  const api = useApi();
  const auth = useAuthClient();
  const queryClient = useQueryClient();
  const { t, i18n } = useTranslation();
  return useMutation({
    mutationFn: (body: SettingsBody) => postSettings(api, body),
    onSuccess: async (saved) => {
      const language = languageOfProfile(saved.language);
      if (language) await i18n.changeLanguage(language);
      // i18n.t, not the hook's t: that one is fixed to the language of the render before the switch.
      toast.success(i18n.t('settings.saved'));
      await Promise.allSettled([auth.reloadUser(), queryClient.invalidateQueries({ queryKey: ['user', 'my-profile'] })]);
    },
    onError: () => {
      toast.error(t('settings.saveFailed'));
    },
  });
};
