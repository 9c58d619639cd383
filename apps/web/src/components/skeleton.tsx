/** Placeholder lines in Bootstrap's placeholder style while a list loads (spec §2: skeletons, placeholder rows). */
export const Skeleton = ({ lines = 3, className }: { lines?: number; className?: string }) => (
  <div className={['placeholder-glow', className].filter(Boolean).join(' ')} aria-hidden="true" data-testid="skeleton">
    {Array.from({ length: lines }, (_, index) => (
      <span key={index} className="placeholder col-12 mb-2 d-block" />
    ))}
  </div>
);

/** Table rows of placeholders (spec §2: "While loading, 10 placeholder rows show"). */
export const SkeletonRows = ({ rows, columns }: { rows: number; columns: number }) => (
  <>
    {Array.from({ length: rows }, (_, row) => (
      <tr key={row} className="placeholder-glow" aria-hidden="true" data-testid="skeleton-row">
        {Array.from({ length: columns }, (_, column) => (
          <td key={column}>
            <span className="placeholder col-10" />
          </td>
        ))}
      </tr>
    ))}
  </>
);
