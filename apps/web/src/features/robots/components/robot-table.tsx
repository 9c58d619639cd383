import type { Robot } from '@uvd/contracts';
import { useTranslation } from 'react-i18next';
import { SkeletonRows } from '../../../components/skeleton.tsx';
import { robotNeverReported, robotOffline } from '../../../lib/robot-presence.ts';
import { robotStatusLabel } from '../../../lib/robot-status.ts';
import { BatteryIndicator, SignalIndicator, UnknownValue } from './robot-indicators.tsx';

const COLUMNS = 4;
const LOADING_ROWS = 5;

export interface RobotTableProps {
  robots: Robot[] | undefined;
  loading: boolean;
  onOpen: (robotId: string) => void;
}

/**
 * Behaviour §2 robots table: name (sorted ascending by the query), status, battery, signal. A click anywhere on a row
 * opens the dialog; the keyboard reaches it through the name's button (Enter or Space), so the row keeps its
 * table semantics and there is one tab stop per robot.
 */
export const RobotTable = ({ robots, loading, onOpen }: RobotTableProps) => {
  const { t } = useTranslation();
  return (
    <div className="table-responsive">
      <table className="table table-hover align-middle" aria-busy={loading}>
        <caption className="visually-hidden">{t('nav.robots')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('robotTable.name')}</th>
            <th scope="col">{t('robotTable.status')}</th>
            <th scope="col">{t('robotTable.battery')}</th>
            <th scope="col">{t('robotTable.signal')}</th>
          </tr>
        </thead>
        <tbody>
          {loading ? <SkeletonRows rows={LOADING_ROWS} columns={COLUMNS} /> : null}
          {!loading && robots?.length === 0 ? (
            <tr>
              <td colSpan={COLUMNS} className="text-body-secondary">
                {t('robotTable.noRobots')}
              </td>
            </tr>
          ) : null}
          {robots?.map((robot) => (
            <tr
              key={robot.robot_id}
              data-testid="robot-row"
              className={robot.stale ? 'table-warning' : undefined}
              style={{ cursor: 'pointer' }}
              onClick={() => {
                onOpen(robot.robot_id);
              }}
            >
              <th scope="row" className="fw-normal">
                {/* The button gives keyboard and screen-reader users the row's action (Enter or Space opens it). */}
                <button
                  type="button"
                  className="btn btn-link p-0 text-start text-decoration-none text-nowrap"
                  aria-haspopup="dialog"
                  onClick={(event) => {
                    event.stopPropagation();
                    onOpen(robot.robot_id);
                  }}
                >
                  {robot.name}
                </button>
                {robotOffline(robot) ? (
                  <span className="badge text-bg-secondary ms-2" data-testid="robot-offline">
                    {t('robotModes.0')}
                  </span>
                ) : null}
                {robot.stale ? (
                  <span className="badge text-bg-warning ms-2" title={t('robotTable.staleHint')}>
                    {t('robotTable.stale')}
                  </span>
                ) : null}
              </th>
              <td>
                {robotNeverReported(robot) ? (
                  <UnknownValue testId="robot-status" label={t('robotTable.statusUnknown')} />
                ) : (
                  robotStatusLabel(t, robot.status)
                )}
              </td>
              <td>
                <BatteryIndicator battery={robot.battery} charging={robot.charging_status === 1} />
              </td>
              <td>
                <SignalIndicator ping={robot.signal} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};
