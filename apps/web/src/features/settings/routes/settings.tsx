import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/page-title.tsx';
import { NotificationsSwitch } from '../components/notifications-switch.tsx';
import { PromptSoundSwitch } from '../components/prompt-sound-switch.tsx';
import { SettingsForm } from '../components/settings-form.tsx';

/** Behaviour §2 settings: language, timezone, save, and the notifications switch; and the prompt sound opt-in. */
export const SettingsRoute = () => {
  const { t } = useTranslation();
  return (
    <>
      <PageTitle title={t('settings.title')} />
      <SettingsForm />
      <NotificationsSwitch />
      <PromptSoundSwitch />
    </>
  );
};
