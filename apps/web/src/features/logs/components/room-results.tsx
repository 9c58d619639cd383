import type { LoggedRoom, RoomDoseStats } from '@uvd/contracts';
import { Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { formatJPerM2, formatMjPerCm2 } from './dose-scale.ts';

type RoomResult = 'disinfected' | 'not_disinfected' | 'not_ready' | 'not_reached';

/**
 * Spec §3 room result labels: a room whose lamp ran and was interrupted reads "Not disinfected (Aborted)"; one the
 * robot never began stays "Not reached", whatever ended the job.
 */
export const roomResult = (room: LoggedRoom): RoomResult => {
  if (room.state === 'done') return 'disinfected';
  if (room.state === 'aborted') return 'not_disinfected';
  return room.state;
};

/** J/m² received of the planned dose, as the robot reported it (one decimal); the planned dose alone when it did not. */
const ReportedDose = ({ room }: { room: LoggedRoom }) => {
  const { t } = useTranslation();
  if (room.dose_received === null) return <>{room.dose}</>;
  return <>{t('logDetail.doseOf', { received: Math.round(room.dose_received * 10) / 10, planned: room.dose })}</>;
};

/** A dose the model computed: J/m², and mJ/cm² under it. */
const ModelDose = ({ value }: { value: number }) => {
  const { t } = useTranslation();
  return (
    <>
      <span className="text-nowrap">
        {formatJPerM2(value)} {t('dose.jPerM2')}
      </span>
      <br />
      <span className="small text-body-secondary text-nowrap">
        {formatMjPerCm2(value)} {t('dose.mjPerCm2')}
      </span>
    </>
  );
};

/** The room results, with the model's figures when it computed them (`stats`: the log's, else the dose map's). */
export const RoomResults = ({ rooms, statsOf }: { rooms: readonly LoggedRoom[]; statsOf: (room: LoggedRoom) => RoomDoseStats | null }) => {
  const { t } = useTranslation();
  const none = (
    <>
      <span aria-hidden="true">–</span>
      <span className="visually-hidden">{t('dose.notComputed')}</span>
    </>
  );
  return (
    // Scrolls sideways on a phone; focusable, so a keyboard can scroll it too (WCAG 2.1.1). The frame is a size
    // container: inside the logs table's cell its eight columns would otherwise widen the whole row past the screen.
    <div className="log-results-frame">
    <div className="table-responsive" role="region" aria-labelledby="log-rooms-heading" tabIndex={0}>
      <Table size="sm" className="mb-2 align-middle">
        <thead>
          <tr>
            <th scope="col">{t('logDetail.order')}</th>
            <th scope="col">{t('logDetail.room')}</th>
            <th scope="col">{t('logDetail.status')}</th>
            <th scope="col">{t('logDetail.dose')}</th>
            <th scope="col">{t('dose.min')}</th>
            <th scope="col">{t('dose.p10')}</th>
            <th scope="col">{t('dose.mean')}</th>
            <th scope="col">{t('dose.coverage')}</th>
          </tr>
        </thead>
        <tbody>
          {rooms.map((room) => {
            const stats = statsOf(room);
            return (
              <tr key={`${String(room.order)}-${room.room_id}`} data-testid="logged-room">
                <td>{room.order + 1}</td>
                <td>{room.room_name}</td>
                <td>{t(`roomResult.${roomResult(room)}`)}</td>
                <td>
                  <ReportedDose room={room} />
                </td>
                <td>{stats ? <ModelDose value={stats.min} /> : none}</td>
                <td>{stats ? <ModelDose value={stats.p10} /> : none}</td>
                <td>{stats ? <ModelDose value={stats.mean} /> : none}</td>
                <td className="text-nowrap">{stats ? t('dose.percent', { value: Math.round(stats.coverage * 100) }) : none}</td>
              </tr>
            );
          })}
        </tbody>
      </Table>
    </div>
    </div>
  );
};
