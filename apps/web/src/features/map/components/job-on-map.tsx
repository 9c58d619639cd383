import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { getJob } from '@uvd/contracts';
import type { Robot } from '@uvd/contracts';
import { JobProgressLine } from '../../../components/job-progress.tsx';
import { useApi } from '../../../lib/api-context.tsx';

/**
 * The progress of the job the map was opened for (`?job=`, the row's "show on map"), while it runs. Read again
 * whenever its robot's live status changes (it finished a room and drives on, it waits at a door, it disinfects):
 * the map keeps the robots live already, so this needs no stream of its own.
 */
export const JobOnMap = ({ jobId, robot }: { jobId: string; robot: Robot | undefined }) => {
  const { t } = useTranslation();
  const api = useApi();
  const job = useQuery({
    queryKey: ['map', 'job-progress', jobId, robot?.status ?? null],
    queryFn: ({ signal }) => api.request(getJob, { params: { id: jobId }, query: { extra_room_data: 'true' }, signal }),
    placeholderData: (previous) => previous,
  });
  if (job.data?.status !== 'Running') return null;
  return (
    <section className="mt-3" aria-labelledby="map-job-heading" data-testid="map-job-progress">
      <h2 className="h6" id="map-job-heading">
        {t('map.robotJob', { robot: job.data.robot_name, job: job.data.name })}
      </h2>
      <JobProgressLine job={job.data} />
    </section>
  );
};
