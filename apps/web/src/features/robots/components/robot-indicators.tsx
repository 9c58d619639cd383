import { useTranslation } from 'react-i18next';
import { SIGNAL_BARS, signalLevel, signalPercent } from '../signal.ts';

/**
 * A value the robot has not reported (it has not spoken since it was registered): a dash, not 0 % or empty bars,
 * which would be readings; screen readers hear the label instead.
 */
export const UnknownValue = ({ testId, label }: { testId: string; label: string }) => (
  <span data-testid={testId} data-unknown="true" title={label}>
    <span aria-hidden="true">—</span>
    <span className="visually-hidden">{label}</span>
  </span>
);

/**
 * Battery percent with a charging mark (charging_status 1, behaviour §3). Below 576 px the bar is left out (the percent
 * says the same) and the mark may wrap under the percent, so the robots table fits a 375 px screen.
 */
export const BatteryIndicator = ({ battery, charging }: { battery: number | null; charging: boolean }) => {
  const { t } = useTranslation();
  if (battery === null) return <UnknownValue testId="battery" label={t('robotTable.batteryUnknown')} />;
  const percent = Math.round(Math.min(100, Math.max(0, battery)));
  const tone = percent < 20 ? 'bg-danger' : percent < 50 ? 'bg-warning' : 'bg-success';
  return (
    <span className="d-inline-flex flex-wrap align-items-center column-gap-2 row-gap-1 text-nowrap" data-testid="battery">
      <span
        className="progress d-none d-sm-flex"
        style={{ width: 48, height: 8 }}
        role="progressbar"
        aria-label={t('robotTable.battery')}
        aria-valuenow={percent}
        aria-valuemin={0}
        aria-valuemax={100}
      >
        {/* No width transition: the bar shows the reading the robot reported, not a glide through values it never
            reported, and a live table of robots would otherwise animate without pause (55 layouts a second). */}
        <span className={`progress-bar ${tone}`} style={{ width: `${percent}%`, transition: 'none' }} />
      </span>
      <span>{percent} %</span>
      {charging ? (
        <span className="badge text-bg-info" data-testid="charging">
          <span aria-hidden="true">⚡</span> {t('robotTable.charging')}
        </span>
      ) : null}
    </span>
  );
};

/** Signal bars and level word of behaviour §9 from the robot's ping in ms; the word may wrap under the bars. */
export const SignalIndicator = ({ ping }: { ping: number | null }) => {
  const { t } = useTranslation();
  if (ping === null) return <UnknownValue testId="signal" label={t('robotTable.signalUnknown')} />;
  const level = signalLevel(ping);
  const percent = signalPercent(ping);
  const lit = SIGNAL_BARS[level];
  return (
    <span
      className="d-inline-flex flex-wrap align-items-end column-gap-2 text-nowrap"
      data-testid="signal"
      data-level={level}
      title={percent === null ? undefined : `${ping} ms`}
    >
      <span className="d-inline-flex align-items-end gap-1" aria-hidden="true">
        {[1, 2, 3, 4].map((bar) => (
          <span
            key={bar}
            className={bar <= lit ? 'bg-success' : 'bg-secondary-subtle'}
            style={{ display: 'inline-block', width: 4, height: 4 + bar * 3 }}
          />
        ))}
      </span>
      <span>{t(`signal.${level}`)}</span>
    </span>
  );
};
