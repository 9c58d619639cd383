import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/page-title.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { JobEditor } from '../components/job-editor.tsx';
import { newJobValues } from '../components/job-editor-form.ts';

/** Behaviour §2 /jobs/create: the job editor with the defaults of behaviour §5 (name and start from now). */
export const JobCreateRoute = () => {
  const { t } = useTranslation();
  const user = useSessionUser();
  const [initial] = useState(() => newJobValues(user.given_name, user.timezone));
  return (
    <>
      <PageTitle title={t('jobEditor.createTitle')} />
      <JobEditor jobId={null} initial={initial} />
    </>
  );
};
