import { Button, Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import type { AssignItem } from '../api/get-assignment.ts';

interface AssignmentTableProps {
  others: AssignItem[];
  members: AssignItem[];
  membersHeader: string;
  onAssign: (item: AssignItem) => void;
  onUnassign: (item: AssignItem) => void;
}

const Cell = ({ item, label, symbol, onClick }: { item: AssignItem | undefined; label: string; symbol: string; onClick: () => void }) =>
  item ? (
    <td className="text-break">
      <div className="d-flex align-items-center justify-content-between gap-2">
        <span>{item.item_name}</span>
        <Button size="sm" variant="outline-primary" aria-label={label} onClick={onClick}>
          <span aria-hidden="true">{symbol}</span>
        </Button>
      </div>
    </td>
  ) : (
    <td />
  );

/** Behaviour §2: items not in the group ("another") beside the members; each moves to the other column. */
export const AssignmentTable = ({ others, members, membersHeader, onAssign, onUnassign }: AssignmentTableProps) => {
  const { t } = useTranslation();
  const rows = Math.max(others.length, members.length);
  return (
    <Table bordered className="align-middle" style={{ tableLayout: 'fixed' }} data-testid="assignment-table">
      <thead>
        <tr>
          <th scope="col" className="w-50">
            {t('assignView.another')}
          </th>
          <th scope="col" className="w-50">
            {membersHeader}
          </th>
        </tr>
      </thead>
      <tbody>
        {Array.from({ length: rows }, (_, index) => {
          const other = others[index];
          const member = members[index];
          return (
            <tr key={index}>
              <Cell
                item={other}
                label={t('assignView.assignItem', { name: other?.item_name ?? '' })}
                symbol="→"
                onClick={() => {
                  if (other) onAssign(other);
                }}
              />
              <Cell
                item={member}
                label={t('assignView.unassignItem', { name: member?.item_name ?? '' })}
                symbol="←"
                onClick={() => {
                  if (member) onUnassign(member);
                }}
              />
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
};
