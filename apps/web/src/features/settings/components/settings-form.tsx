import { useId, useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Alert, Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Skeleton } from '../../../components/skeleton.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { DEFAULT_TIME_ZONE } from '../../../lib/format-date.ts';
import { useSaveSettings } from '../api/save-settings.ts';
import { useLanguages, useTimezones } from '../api/settings-lists.ts';

/** Behaviour §2 settings: language and timezone, saved together. */
export const SettingsForm = () => {
  const { t, i18n } = useTranslation();
  const user = useSessionUser();
  const languages = useLanguages();
  const timezones = useTimezones();
  const save = useSaveSettings();
  // The language shown: the profile's (lib/i18n.ts applies it), or the one this page was opened with (?lng=).
  const [language, setLanguage] = useState(() => i18n.resolvedLanguage ?? user.language.toLowerCase());
  const [timezone, setTimezone] = useState(() => user.timezone || DEFAULT_TIME_ZONE);
  const [timezoneInvalid, setTimezoneInvalid] = useState(false);
  const ids = { language: useId(), timezone: useId(), timezoneList: useId(), timezoneHelp: useId(), timezoneError: useId() };

  if (languages.isPending || timezones.isPending) {
    return (
      <>
        <span className="visually-hidden" role="status">
          {t('common.loading')}
        </span>
        <Skeleton lines={4} />
      </>
    );
  }
  if (languages.isError || timezones.isError) return <Alert variant="danger">{t('settings.loadError')}</Alert>;

  const languageOptions = languages.data.some(([, id]) => id.toLowerCase() === language)
    ? languages.data
    : [...languages.data, [language.toUpperCase(), language] as const];

  const onSubmit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    const chosen = timezones.data.find(([name]) => name.toLowerCase() === timezone.trim().toLowerCase());
    if (!chosen) {
      setTimezoneInvalid(true);
      document.getElementById(ids.timezone)?.focus();
      return;
    }
    setTimezoneInvalid(false);
    setTimezone(chosen[0]);
    // Sent as the server stores it (EN, FI, SE), so the request and the saved value read the same.
    save.mutate({ language: language.toUpperCase(), timezone: chosen[0] });
  };

  return (
    <Form noValidate onSubmit={onSubmit} className="mb-4" style={{ maxWidth: '32rem' }}>
      <Form.Group className="mb-3" controlId={ids.language}>
        <Form.Label>{t('settings.language')}</Form.Label>
        <Form.Select
          value={language}
          onChange={(event) => {
            setLanguage(event.target.value);
          }}
        >
          {languageOptions.map(([name, id]) => (
            <option key={id} value={id.toLowerCase()}>
              {name}
            </option>
          ))}
        </Form.Select>
      </Form.Group>
      <Form.Group className="mb-3" controlId={ids.timezone}>
        <Form.Label>{t('settings.timezone')}</Form.Label>
        <Form.Control
          type="text"
          list={ids.timezoneList}
          autoComplete="off"
          spellCheck={false}
          value={timezone}
          isInvalid={timezoneInvalid}
          aria-invalid={timezoneInvalid}
          aria-describedby={timezoneInvalid ? `${ids.timezoneError} ${ids.timezoneHelp}` : ids.timezoneHelp}
          onChange={(event) => {
            setTimezone(event.target.value);
            setTimezoneInvalid(false);
          }}
        />
        <datalist id={ids.timezoneList}>
          {timezones.data.map(([name, offset]) => (
            <option key={name} value={name}>{`${name} (UTC${offset})`}</option>
          ))}
        </datalist>
        <Form.Control.Feedback type="invalid" id={ids.timezoneError}>
          {t('settings.timezoneInvalid')}
        </Form.Control.Feedback>
        <Form.Text id={ids.timezoneHelp}>{t('settings.timezoneHelp')}</Form.Text>
      </Form.Group>
      <Button type="submit" disabled={save.isPending}>
        {save.isPending ? <Spinner size="sm" /> : null} {t('settings.save')}
      </Button>
    </Form>
  );
};
