import { WIDE_SCREEN_CELL } from './responsive.ts';
import { SkeletonRows } from './skeleton.tsx';

/** The jobs and logs lists (behaviour §2): expand toggle, name, status, robot, start time. */
export const LIST_COLUMNS = 5;
/** Behaviour §2: "While loading, 10 placeholder rows show". */
export const LIST_PLACEHOLDER_ROWS = 10;
/** Robot and start time are left out at phone widths: the name's cell shows them under the name. */
const COLUMN_CLASSES = [undefined, undefined, undefined, WIDE_SCREEN_CELL, WIDE_SCREEN_CELL] as const;

/**
 * The class of a jobs or logs list's table (styles/theme.css `.list-table`): a long unbroken name wraps inside its
 * cell, so it cannot push the robot and start time past the screen's edge nor squeeze the status and progress.
 */
export const LIST_TABLE_CLASS = 'list-table';

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
      <th scope="col" className="list-status">
        {labels.status}
      </th>
      <th scope="col" className={WIDE_SCREEN_CELL}>
        {labels.robot}
      </th>
      <th scope="col" className={WIDE_SCREEN_CELL}>
        {labels.startTime}
      </th>
    </tr>
  </thead>
);

/**
 * A row's name. On a phone the robot and start time columns are left out, so they show on a second line under
 * the name: rows of a recurring name ("Morning round A1") are told apart without opening each. From 576 px up the
 * line is hidden (the columns show them), so a screen reader reads each once.
 */
export const ListNameCell = ({ name, robot, time }: { name: string; robot: string; time: string }) => (
  <td>
    <span data-testid="list-row-name">{name}</span>
    <span className="d-block d-sm-none small text-body-secondary" data-testid="list-row-details">
      {robot} · {time}
    </span>
  </td>
);

/** A row's robot and start time columns, shown from 576 px up. */
export const ListWideCells = ({ robot, time }: { robot: string; time: string }) => (
  <>
    <td className={WIDE_SCREEN_CELL}>{robot}</td>
    <td className={`${WIDE_SCREEN_CELL} text-nowrap`}>{time}</td>
  </>
);

/** The ten placeholder rows of a list while it loads, with the head's columns. */
export const ListPlaceholderRows = () => <SkeletonRows rows={LIST_PLACEHOLDER_ROWS} columns={LIST_COLUMNS} cellClassNames={COLUMN_CLASSES} />;
