import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { FloorMapMetadata } from '@uvd/contracts';
import { useFloorMapImage, useFloorMapMetadata } from '../../lib/site-queries.ts';
import { Spinner } from '../spinner.tsx';

/**
 * A floor's plan set into a page (a log's path and dose, a delivery's route): a spinner in its place while the
 * plan and its metadata load, an alert if either fails, and then `children` draws the plan with them.
 */
export const FloorPlanInset = ({ floorId, children }: { floorId: string | null; children: (plan: { svg: string; frame: FloorMapMetadata }) => ReactNode }) => {
  const { t } = useTranslation();
  const image = useFloorMapImage(floorId);
  const metadata = useFloorMapMetadata(floorId);
  if (image.isError || metadata.isError) {
    return (
      <div className="alert alert-danger mb-0" role="alert">
        {t('map.loadFailed')}
      </div>
    );
  }
  if (!image.data || !metadata.data) {
    return (
      <div className="floor-plan floor-plan-inset d-flex align-items-center justify-content-center border rounded" aria-busy="true">
        <Spinner />
      </div>
    );
  }
  return children({ svg: image.data, frame: metadata.data });
};

interface FloorButtonsProps {
  floorIds: readonly string[];
  floorId: string | null;
  nameOf: (floorId: string) => string;
  /** The group's accessible name. */
  label: string;
  onPick: (floorId: string) => void;
}

/** One button per floor when there is more than one (a path or a route over several floors); the shown one pressed. */
export const FloorButtons = ({ floorIds, floorId, nameOf, label, onPick }: FloorButtonsProps) =>
  floorIds.length > 1 ? (
    <div className="btn-group btn-group-sm mb-2 flex-wrap" role="group" aria-label={label}>
      {floorIds.map((id) => (
        <button
          key={id}
          type="button"
          className={id === floorId ? 'btn btn-primary' : 'btn btn-outline-primary'}
          aria-pressed={id === floorId}
          onClick={() => {
            onPick(id);
          }}
        >
          {nameOf(id)}
        </button>
      ))}
    </div>
  ) : null;
