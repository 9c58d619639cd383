/** Placeholder lines in Bootstrap's placeholder style while a list loads (behaviour §2: skeletons, placeholder rows). */
export const Skeleton = ({ lines = 3, className }: { lines?: number; className?: string }) => (
  <div className={['placeholder-glow', className].filter(Boolean).join(' ')} aria-hidden="true" data-testid="skeleton">
    {Array.from({ length: lines }, (_, index) => (
      <span key={index} className="placeholder col-12 mb-2 d-block" />
    ))}
  </div>
);

/**
 * Table rows of placeholders (behaviour §2: "While loading, 10 placeholder rows show"). `cellClassNames` by column
 * index, for columns the table hides on narrow screens.
 */
export const SkeletonRows = ({ rows, columns, cellClassNames = [] }: { rows: number; columns: number; cellClassNames?: readonly (string | undefined)[] }) => (
  <>
    {Array.from({ length: rows }, (_, row) => (
      <tr key={row} className="placeholder-glow" aria-hidden="true" data-testid="skeleton-row">
        {Array.from({ length: columns }, (_, column) => (
          <td key={column} className={cellClassNames[column]}>
            <span className="placeholder col-10" />
          </td>
        ))}
      </tr>
    ))}
  </>
);
