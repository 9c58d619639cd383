import { CreateContactInput, CreateGroupInput, CreateUserInput } from '@uvd/contracts';
import type { Contact, Group, Robot, User } from '@uvd/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import type { AdminTab } from '../../../config/paths.ts';
import { toast } from '../../../lib/toast.ts';
import {
  useAdminContacts,
  useAdminDelete,
  useAdminGroups,
  useAdminRobots,
  useAdminUsers,
  useCreateContact,
  useCreateGroup,
  useCreateUser,
} from '../api/admin-api.ts';
import { AddModal } from '../components/add-modal.tsx';
import type { AddField } from '../components/add-modal.tsx';
import { AdminList } from '../components/admin-list.tsx';
import { HashTabList, panelId, tabId, useHashTab } from '../components/hash-tabs.tsx';

const TABS: readonly AdminTab[] = ['users', 'groups', 'robots', 'contacts'];
const PREFIX = 'admin';

const useUserFields = (): readonly AddField<keyof CreateUserInput>[] => {
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

const UsersTab = () => {
  const { t } = useTranslation();
  const users = useAdminUsers();
  const create = useCreateUser();
  const userFields = useUserFields();
  const remove = useAdminDelete('user');
  const [adding, setAdding] = useState(false);
  return (
    <>
      <AdminList<User>
        name="user"
        items={users.data}
        loading={users.isPending}
        failed={users.isError}
        columns={[{ header: t('adminView.username'), cell: (user) => user.username, text: (user) => user.username }]}
        idOf={(user) => user.id}
        labelOf={(user) => user.username}
        onAdd={() => {
          setAdding(true);
        }}
        onDelete={async (user) => {
          try {
            await remove.mutateAsync(user.id);
            toast.success(t('adminView.userDeleted'));
          } catch {
            toast.error(t('adminView.userNotDeleted'));
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
            await create.mutateAsync(values);
            toast.success(t('adminView.userCreated'));
          } catch {
            toast.error(t('adminView.userNotCreated'));
          }
        }}
        onClose={() => {
          setAdding(false);
        }}
      />
    </>
  );
};

const GroupsTab = () => {
  const { t } = useTranslation();
  const groups = useAdminGroups();
  const create = useCreateGroup();
  const groupFields = useGroupFields();
  const remove = useAdminDelete('group');
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

/** Spec §6: robots are listed here but cannot be created (no add button). */
const RobotsTab = () => {
  const { t } = useTranslation();
  const robots = useAdminRobots();
  return (
    <AdminList<Robot>
      name="robot"
      items={robots.data}
      loading={robots.isPending}
      failed={robots.isError}
      columns={[{ header: t('adminView.robotName'), cell: (robot) => robot.name, text: (robot) => robot.name }]}
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
  const remove = useAdminDelete('contact');
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
};

/** Spec §2 admin dashboard: four tabs by hash (#users default, #groups, #robots, #contacts). */
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
