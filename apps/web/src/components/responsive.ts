/**
 * A table cell shown from Bootstrap's sm breakpoint (576 px) up. At 375 px the jobs and logs lists keep the
 * columns a row is recognised by (name, status); what else it shows (robot, start time) is in its expanded row,
 * so the table and the expanded details fit the screen instead of scrolling sideways.
 */
export const WIDE_SCREEN_CELL = 'd-none d-sm-table-cell';
