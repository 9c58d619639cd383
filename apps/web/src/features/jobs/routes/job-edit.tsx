import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { Skeleton } from '../../../components/skeleton.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { useListReturn } from '../../../lib/use-list-address.ts';
import { useEditorJob } from '../api/job-editor-queries.ts';
import { JobEditor } from '../components/job-editor.tsx';
import { jobValues } from '../components/job-editor-form.ts';

/** Behaviour §2 /jobs/edit/:jobid: the saved job in the editor; a Running job cannot be edited (behaviour §4). */
export const JobEditRoute = () => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const { jobid = '' } = useParams();
  const job = useEditorJob(jobid);
  const list = useListReturn(paths.jobs.path);

  const notice = (variant: 'danger' | 'warning', text: string) => (
    <>
      <div className={`alert alert-${variant}`} role="alert">
        {text}
      </div>
      <Link className="btn btn-outline-secondary" to={list}>
        {t('jobEditor.cancel')}
      </Link>
    </>
  );

  let content;
  if (job.isPending) {
    content = (
      <div aria-busy="true">
        <Spinner />
        <Skeleton lines={6} className="mt-3" />
      </div>
    );
  } else if (job.isError) {
    content = notice('danger', t('jobEditor.error'));
  } else if (job.data.status === 'Running') {
    // Behaviour §4: edit is allowed only when the status is known and not Running.
    content = notice('warning', t('jobControls.errorJobRunning'));
  } else {
    // Keyed by job: the form starts from the loaded job and is not reset by later refetches.
    content = <JobEditor key={job.data.job_id} jobId={job.data.job_id} initial={jobValues(job.data, timezone)} />;
  }

  return (
    <>
      <PageTitle title={t('jobEditor.editTitle')} />
      {content}
    </>
  );
};
