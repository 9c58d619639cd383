import type { LoggedRoom, RoomDoseStats } from '@uvd/contracts';
import { Fragment } from 'react';
import { Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { PHONE_QUERY, useMediaQuery } from '../../../lib/use-media-query.ts';
import { formatJPerM2, formatMjPerCm2 } from './dose-scale.ts';

type RoomResult = 'disinfected' | 'not_disinfected' | 'not_ready' | 'not_reached';

/**
 * Behaviour §3 room result labels: a room whose lamp ran and was interrupted reads "Not disinfected (Aborted)"; one the
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
  const phone = useMediaQuery(PHONE_QUERY);
  const none = (
    <>
      <span aria-hidden="true">–</span>
      <span className="visually-hidden">{t('dose.notComputed')}</span>
    </>
  );
  const labels = [t('logDetail.dose'), t('dose.min'), t('dose.p10'), t('dose.mean'), t('dose.coverage')] as const;
  /** The room's figures, in the order of `labels`. */
  const figures = (room: LoggedRoom) => {
    const stats = statsOf(room);
    const values = [
      <ReportedDose key="reported" room={room} />,
      stats ? <ModelDose value={stats.min} /> : none,
      stats ? <ModelDose value={stats.p10} /> : none,
      stats ? <ModelDose value={stats.mean} /> : none,
      stats ? t('dose.percent', { value: Math.round(stats.coverage * 100) }) : none,
    ];
    return labels.map((label, index) => ({ label, value: values[index], last: index === labels.length - 1 }));
  };
  if (phone) {
    // Eight columns cannot share a phone's width: each room is a block of its figures, label beside value.
    return (
      <ol className="list-unstyled mb-2" aria-labelledby="log-rooms-heading">
        {rooms.map((room) => (
          <li key={`${String(room.order)}-${room.room_id}`} className="py-2 border-bottom" data-testid="logged-room">
            <div className="fw-semibold text-break">
              {room.order + 1}. {room.room_name}
            </div>
            <div>{t(`roomResult.${roomResult(room)}`)}</div>
            <dl className="row g-0 mb-0 small">
              {figures(room).map(({ label, value }) => (
                <Fragment key={label}>
                  <dt className="col-6 fw-normal text-body-secondary">{label}</dt>
                  <dd className="col-6 mb-1">{value}</dd>
                </Fragment>
              ))}
            </dl>
          </li>
        ))}
      </ol>
    );
  }
  return (
    // Focusable, so a keyboard can scroll it where it is narrower than its columns (WCAG 2.1.1). The frame is a size
    // container: inside the logs table's cell its eight columns would otherwise widen the whole row past the screen.
    <div className="log-results-frame">
      <div className="table-responsive" role="region" aria-labelledby="log-rooms-heading" tabIndex={0}>
        <Table size="sm" className="mb-2 align-middle">
          <thead>
            <tr>
              <th scope="col">{t('logDetail.order')}</th>
              <th scope="col">{t('logDetail.room')}</th>
              <th scope="col">{t('logDetail.status')}</th>
              {labels.map((label) => (
                <th key={label} scope="col">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rooms.map((room) => (
              <tr key={`${String(room.order)}-${room.room_id}`} data-testid="logged-room">
                <td>{room.order + 1}</td>
                <td>{room.room_name}</td>
                <td>{t(`roomResult.${roomResult(room)}`)}</td>
                {figures(room).map(({ label, value, last }) => (
                  <td key={label} className={last ? 'text-nowrap' : undefined}>
                    {value}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </Table>
      </div>
    </div>
  );
};
