import { WIDE_SCREEN_CELL } from './responsive.ts';
import { SkeletonRows } from './skeleton.tsx';

/** The jobs and logs lists (spec §2): expand toggle, name, status, robot, start time. */
export const LIST_COLUMNS = 5;
/** Spec §2: "While loading, 10 placeholder rows show". */
export const LIST_PLACEHOLDER_ROWS = 10;
/** Robot and start time are left out at phone widths: a row's details show them. */
const COLUMN_CLASSES = [undefined, undefined, undefined, WIDE_SCREEN_CELL, WIDE_SCREEN_CELL] as const;

export interface ListTableLabels {
  expand: string;
  name: string;
  status: string;
  robot: string;
  startTime: string;
}

/** The head row of the jobs and logs lists, in the screen's own words. */
export const ListTableHead = ({ labels }: { labels: ListTableLabels }) => (
  <thead>
    <tr>
      <th scope="col">
        <span className="visually-hidden">{labels.expand}</span>
      </th>
      <th scope="col">{labels.name}</th>
      <th scope="col">{labels.status}</th>
      <th scope="col" className={WIDE_SCREEN_CELL}>
        {labels.robot}
      </th>
      <th scope="col" className={WIDE_SCREEN_CELL}>
        {labels.startTime}
      </th>
    </tr>
  </thead>
);

/** The ten placeholder rows of a list while it loads, with the head's columns. */
export const ListPlaceholderRows = () => <SkeletonRows rows={LIST_PLACEHOLDER_ROWS} columns={LIST_COLUMNS} cellClassNames={COLUMN_CLASSES} />;
