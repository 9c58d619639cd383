import { CreateContactInput, CreateGroupInput, CreateUserInput, ErrorCode, NEW_USER_DEFAULT_ROLE } from '@uvd/contracts';
import type { Contact, Group, Robot, Role, User } from '@uvd/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import type { AdminTab } from '../../../config/paths.ts';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { toast } from '../../../lib/toast.ts';
import { useCreateContact } from '../api/create-contact.ts';
import { useCreateGroup } from '../api/create-group.ts';
import { useCreateUser } from '../api/create-user.ts';
import { useDeleteContact } from '../api/delete-contact.ts';
import { useDeleteGroup } from '../api/delete-group.ts';
import { useDeleteUser } from '../api/delete-user.ts';
import { useAdminRobots } from '../api/get-admin-robots.ts';
import { useAdminContacts } from '../api/get-contacts.ts';
import { useAdminGroups } from '../api/get-groups.ts';
import { useAdminUsers } from '../api/get-users.ts';
import { AddModal } from '../components/add-modal.tsx';
import type { AddField } from '../components/add-modal.tsx';
import { AdminList } from '../components/admin-list.tsx';
import { AuditTab } from '../components/audit-tab.tsx';
import { HashTabList, panelId, tabId, useHashTab } from '../components/hash-tabs.tsx';
import { SetPasswordAction } from '../components/set-password-action.tsx';
import { UserAccessFields } from '../components/user-access-fields.tsx';
import { WebhooksTab } from '../components/webhooks-tab.tsx';

const TABS: readonly AdminTab[] = ['users', 'groups', 'robots', 'contacts', 'audit', 'webhooks'];
const PREFIX = 'admin';

/** The text fields of the create payload of behaviour §3; role and groups are chosen beside them. */
type UserTextField = Exclude<keyof CreateUserInput, 'role' | 'groupIds'>;

const useUserFields = (): readonly AddField<UserTextField>[] => {
  const { t } = useTranslation();
  return [
    { name: 'firstName', label: t('addUser.firstName'), error: t('addUser.firstNameError'), autoComplete: 'off' },
    { name: 'lastName', label: t('addUser.lastName'), error: t('addUser.lastNameError'), autoComplete: 'off' },
    { name: 'email', label: t('addUser.email'), error: t('addUser.emailError'), type: 'email', autoComplete: 'off' },
    { name: 'password', label: t('addUser.password'), error: t('addUser.passwordError'), type: 'password', autoComplete: 'new-password' },
  ];
};
const useGroupFields = (): readonly AddField<keyof CreateGroupInput>[] => {
  const { t } = useTranslation();
  return [{ name: 'name', label: t('addGroup.name'), error: t('addGroup.nameError'), autoComplete: 'off' }];
};
const useContactFields = (): readonly AddField<keyof CreateContactInput>[] => {
  const { t } = useTranslation();
  return [
    { name: 'title', label: t('addContact.contactTitle'), error: t('addContact.titleError'), autoComplete: 'off' },
    { name: 'name', label: t('addContact.name'), error: t('addContact.nameError'), autoComplete: 'off' },
    { name: 'phone', label: t('addContact.phone'), error: t('addContact.phoneError'), type: 'tel', autoComplete: 'off' },
    { name: 'email', label: t('addContact.email'), error: t('addContact.emailError'), type: 'email', autoComplete: 'off' },
  ];
};

/** Roles an admin may give a new user: done-superadmin only by a done-superadmin (the server's rule). */
const grantableRoles = (own: readonly Role[]): Role[] => [
  'done-teleoperator',
  'done-admin',
  ...(own.includes('done-superadmin') ? (['done-superadmin'] as const) : []),
];

const UsersTab = () => {
  const { t } = useTranslation();
  const self = useSessionUser();
  const users = useAdminUsers();
  const groups = useAdminGroups();
  const create = useCreateUser();
  const userFields = useUserFields();
  const remove = useDeleteUser();
  const [adding, setAdding] = useState(false);
  const [role, setRole] = useState<Role>(NEW_USER_DEFAULT_ROLE);
  const [groupIds, setGroupIds] = useState<string[]>([]);
  const fullName = (user: User) => `${user.firstName} ${user.lastName}`.trim();
  const roleNames = (user: User) => user.roles.map((name) => t(`roles.${name}`)).join(', ');
  const groupNames = (user: User) => user.groups.map((group) => group.name).join(', ');
  return (
    <>
      <AdminList<User>
        name="user"
        items={users.data}
        loading={users.isPending}
        failed={users.isError}
        columns={[
          { header: t('adminView.username'), cell: (user) => user.username, text: (user) => user.username },
          { header: t('adminView.fullName'), cell: fullName, text: fullName },
          { header: t('adminView.email'), cell: (user) => user.email, text: (user) => user.email },
          { header: t('adminView.role'), cell: roleNames, text: roleNames },
          {
            header: t('adminView.groups'),
            cell: (user) => groupNames(user) || <span className="text-body-secondary">{t('adminView.noGroups')}</span>,
            text: groupNames,
          },
        ]}
        idOf={(user) => user.id}
        labelOf={(user) => user.username}
        // Their own password an admin changes as everyone does, giving the current one (the server refuses it here).
        extraAction={(user) =>
          user.id === self.sub ? (
            <Link to={paths.changePassword.getHref()} state={{ from: { pathname: paths.admin.path, search: '', hash: '#users' } }} className="btn btn-outline-primary btn-sm">
              {t('setPassword.own')}
            </Link>
          ) : (
            <SetPasswordAction user={user} />
          )
        }
        onAdd={() => {
          setAdding(true);
        }}
        // The server refuses it too (cannot_delete_self): an organization must keep someone able to administer it.
        deleteBlockedReason={(user) => (user.id === self.sub ? t('adminView.ownAccount') : undefined)}
        onDelete={async (user) => {
          try {
            await remove.mutateAsync(user.id);
            toast.success(t('adminView.userDeleted'));
          } catch (error) {
            toast.error(
              isApiRequestError(error) && error.code === ErrorCode.cannotDeleteSelf ? t('adminView.cannotDeleteSelf') : t('adminView.userNotDeleted'),
            );
          }
        }}
      />
      <AddModal
        show={adding}
        title={t('addUser.title')}
        fields={userFields}
        schema={CreateUserInput}
        onSubmit={async (values) => {
          try {
            await create.mutateAsync({ ...values, role, groupIds });
            toast.success(t('adminView.userCreated'));
          } catch {
            toast.error(t('adminView.userNotCreated'));
          }
        }}
        onClose={() => {
          setAdding(false);
          setRole(NEW_USER_DEFAULT_ROLE);
          setGroupIds([]);
        }}
      >
        <UserAccessFields
          role={role}
          roles={grantableRoles(self.roles)}
          onRole={setRole}
          groups={groups.data}
          groupsLoading={groups.isPending}
          groupsFailed={groups.isError}
          groupIds={groupIds}
          onGroupIds={setGroupIds}
        />
      </AddModal>
    </>
  );
};

const GroupsTab = () => {
  const { t } = useTranslation();
  const groups = useAdminGroups();
  const create = useCreateGroup();
  const groupFields = useGroupFields();
  const remove = useDeleteGroup();
  const [adding, setAdding] = useState(false);
  return (
    <>
      <AdminList<Group>
        name="group"
        items={groups.data}
        loading={groups.isPending}
        failed={groups.isError}
        columns={[{ header: t('adminView.groupName'), cell: (group) => group.name, text: (group) => group.name }]}
        idOf={(group) => group.id}
        labelOf={(group) => group.name}
        extraAction={(group) => (
          <Link
            className="btn btn-outline-primary btn-sm"
            to={paths.adminGroup.getHref(group.id)}
            aria-label={t('adminView.manageGroupNamed', { name: group.name })}
          >
            {t('adminView.manageGroup')}
          </Link>
        )}
        onAdd={() => {
          setAdding(true);
        }}
        onDelete={async (group) => {
          try {
            await remove.mutateAsync(group.id);
            toast.success(t('adminView.groupDeleted'));
          } catch {
            toast.error(t('adminView.groupNotDeleted'));
          }
        }}
      />
      <AddModal
        show={adding}
        title={t('addGroup.title')}
        fields={groupFields}
        schema={CreateGroupInput}
        onSubmit={async (values) => {
          try {
            await create.mutateAsync(values);
            toast.success(t('adminView.groupCreated'));
          } catch {
            toast.error(t('adminView.groupNotCreated'));
          }
        }}
        onClose={() => {
          setAdding(false);
        }}
      />
    </>
  );
};

/** Behaviour §6: robots are listed here but cannot be created (no add button). */
const RobotsTab = () => {
  const { t } = useTranslation();
  const robots = useAdminRobots();
  return (
    <AdminList<Robot>
      name="robot"
      items={robots.data}
      loading={robots.isPending}
      failed={robots.isError}
      columns={[
        { header: t('adminView.robotName'), cell: (robot) => robot.name, text: (robot) => robot.name },
        { header: t('adminView.robotKind'), cell: (robot) => t(`robotKinds.${robot.kind}`), text: (robot) => t(`robotKinds.${robot.kind}`) },
      ]}
      idOf={(robot) => robot.robot_id}
      labelOf={(robot) => robot.name}
    />
  );
};

const ContactsTab = () => {
  const { t } = useTranslation();
  const contacts = useAdminContacts();
  const create = useCreateContact();
  const contactFields = useContactFields();
  const remove = useDeleteContact();
  const [adding, setAdding] = useState(false);
  return (
    <>
      <AdminList<Contact>
        name="contact"
        items={contacts.data}
        loading={contacts.isPending}
        failed={contacts.isError}
        columns={[
          { header: t('addContact.contactTitle'), cell: (contact) => contact.title, text: (contact) => contact.title },
          { header: t('addContact.name'), cell: (contact) => contact.name, text: (contact) => contact.name },
          {
            header: t('addContact.phone'),
            cell: (contact) => <a href={`tel:${contact.phone}`}>{contact.phone}</a>,
            text: (contact) => contact.phone,
          },
          {
            header: t('addContact.email'),
            cell: (contact) => <a href={`mailto:${contact.email}`}>{contact.email}</a>,
            text: (contact) => contact.email,
          },
        ]}
        idOf={(contact) => contact.id}
        labelOf={(contact) => contact.name}
        onAdd={() => {
          setAdding(true);
        }}
        onDelete={async (contact) => {
          try {
            await remove.mutateAsync(contact.id);
            toast.success(t('adminView.contactDeleted'));
          } catch {
            toast.error(t('adminView.contactNotDeleted'));
          }
        }}
      />
      <AddModal
        show={adding}
        title={t('addContact.title')}
        fields={contactFields}
        schema={CreateContactInput}
        onSubmit={async (values) => {
          try {
            await create.mutateAsync(values);
            toast.success(t('adminView.contactCreated'));
          } catch {
            toast.error(t('adminView.contactNotCreated'));
          }
        }}
        onClose={() => {
          setAdding(false);
        }}
      />
    </>
  );
};

const PANELS: Record<AdminTab, () => React.JSX.Element> = {
  users: UsersTab,
  groups: GroupsTab,
  robots: RobotsTab,
  contacts: ContactsTab,
  audit: AuditTab,
  webhooks: WebhooksTab,
};

/** Behaviour §2 admin dashboard, tabs by hash (#users default, #groups, #robots, #contacts), and issue #24's #audit and #webhooks. */
export const AdminRoute = () => {
  const { t } = useTranslation();
  const [tab, select] = useHashTab(TABS, 'users');
  const Panel = PANELS[tab];
  return (
    <>
      <PageTitle title={t('adminView.title')} />
      <HashTabList prefix={PREFIX} label={t('adminView.title')} tabs={TABS} current={tab} labelOf={(item) => t(`adminView.tab.${item}`)} onSelect={select} />
      <div role="tabpanel" id={panelId(PREFIX, tab)} aria-labelledby={tabId(PREFIX, tab)}>
        <Panel key={tab} />
      </div>
    </>
  );
};
