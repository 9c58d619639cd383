import type { Group, Role } from '@uvd/contracts';
import { Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Skeleton } from '../../../components/skeleton.tsx';

interface UserAccessFieldsProps {
  role: Role;
  /** The roles the signed-in admin may give. */
  roles: readonly Role[];
  onRole: (role: Role) => void;
  groups: Group[] | undefined;
  groupsLoading: boolean;
  groupsFailed: boolean;
  groupIds: readonly string[];
  onGroupIds: (ids: string[]) => void;
}

/** The role and groups of a new user, in the add-user modal: a select and one checkbox per group. */
export const UserAccessFields = ({ role, roles, onRole, groups, groupsLoading, groupsFailed, groupIds, onGroupIds }: UserAccessFieldsProps) => {
  const { t } = useTranslation();
  let groupChoices;
  if (groupsFailed) {
    groupChoices = (
      <p className="text-danger small mb-0" role="alert">
        {t('addUser.groupsError')}
      </p>
    );
  } else if (groupsLoading || !groups) {
    groupChoices = <Skeleton lines={2} />;
  } else if (groups.length === 0) {
    groupChoices = <p className="text-body-secondary small mb-0">{t('addUser.noGroups')}</p>;
  } else {
    groupChoices = (
      // A long list scrolls inside the modal instead of pushing its buttons off a phone's screen.
      <div className="overflow-auto" style={{ maxHeight: '12rem' }}>
        {groups.map((group) => (
          <Form.Check
            key={group.id}
            id={`add-group-${group.id}`}
            className="py-1"
            label={group.name}
            checked={groupIds.includes(group.id)}
            onChange={(event) => {
              onGroupIds(event.target.checked ? [...groupIds, group.id] : groupIds.filter((id) => id !== group.id));
            }}
          />
        ))}
      </div>
    );
  }
  return (
    <>
      <Form.Group className="mb-3" controlId="add-role">
        <Form.Label>{t('addUser.role')}</Form.Label>
        <Form.Select
          value={role}
          onChange={(event) => {
            const chosen = roles.find((candidate) => candidate === event.target.value);
            if (chosen) onRole(chosen);
          }}
        >
          {roles.map((candidate) => (
            <option key={candidate} value={candidate}>
              {t(`roles.${candidate}`)}
            </option>
          ))}
        </Form.Select>
      </Form.Group>
      <fieldset className="mb-1" aria-describedby="add-groups-hint">
        <legend className="form-label fs-6 mb-1">{t('addUser.groups')}</legend>
        <p className="form-text mt-0 mb-1" id="add-groups-hint">
          {t('addUser.groupsHint')}
        </p>
        {groupChoices}
      </fieldset>
    </>
  );
};
