import { useState } from 'react';
import { Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { PageSpinner } from '../../../components/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import type { AssignTab } from '../../../config/paths.ts';
import { toast } from '../../../lib/toast.ts';
import { useAssignment } from '../api/get-assignment.ts';
import type { Assignment, AssignItem } from '../api/get-assignment.ts';
import { useGroup } from '../api/get-group.ts';
import { useSubmitAssignment } from '../api/submit-assignment.ts';
import type { Change } from '../api/submit-assignment.ts';
import { AssignmentTable } from '../components/assignment-table.tsx';
import { HashTabList, panelId, tabId, useHashTab } from '../components/hash-tabs.tsx';
import { matches, useDebounced } from '../../../lib/use-debounced.ts';

const TABS: readonly AssignTab[] = ['users', 'locations', 'robots'];
const PREFIX = 'assign';

const NO_DATA = {
  users: 'assignView.usersTab.nodata',
  locations: 'assignView.locationsTab.nodata',
  robots: 'assignView.robotsTab.nodata',
} as const;
const MEMBERS_HEADER = { users: 'assignView.users', locations: 'assignView.rooms', robots: 'assignView.robots' } as const;

type Moves = Partial<Record<AssignTab, string[]>>;

const changeOf = (kind: AssignTab, data: Assignment | undefined, current: string[] | undefined): Change | null => {
  if (!data || !current) return null;
  const before = new Set(data.memberIds);
  const after = new Set(current);
  const added = current.filter((id) => !before.has(id));
  const removed = data.memberIds.filter((id) => !after.has(id));
  return added.length + removed.length === 0 ? null : { kind, added, removed, memberIds: current };
};

/** Behaviour §2 group assignment: users, rooms and robots of one group, moved between two columns, then submitted. */
export const GroupAssignmentRoute = () => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const groupId = useParams().groupid ?? '';
  const [tab, select] = useHashTab(TABS, 'users');
  const group = useGroup(groupId);
  const queries = { users: useAssignment('users', groupId), locations: useAssignment('locations', groupId), robots: useAssignment('robots', groupId) };
  const submit = useSubmitAssignment(groupId);
  // The member ids as moved here, per tab; a tab absent from it shows the server's lists.
  const [moves, setMoves] = useState<Moves>({});
  const [search, setSearch] = useState('');
  const term = useDebounced(search);

  const query = queries[tab];
  const memberIds = moves[tab] ?? query.data?.memberIds ?? [];
  const memberSet = new Set(memberIds);
  const visible = (query.data?.items ?? []).filter((item) => matches(term, item.item_name));
  const others = visible.filter((item) => !memberSet.has(item.item_id));
  const members = visible.filter((item) => memberSet.has(item.item_id));
  const groupName = group.data?.name ?? '';

  const move = (item: AssignItem, assign: boolean) => {
    const next = assign ? [...memberIds, item.item_id] : memberIds.filter((id) => id !== item.item_id);
    setMoves((previous) => ({ ...previous, [tab]: next }));
  };

  const onSubmit = async () => {
    const changes = TABS.map((kind) => changeOf(kind, queries[kind].data, moves[kind])).filter((change) => change !== null);
    if (changes.length === 0) {
      toast.error(t('assignView.empty'));
      return;
    }
    try {
      await submit.mutateAsync(changes);
      if (changes.some((change) => change.added.length > 0)) toast.success(t('assignView.assignSuccess.add'));
      if (changes.some((change) => change.removed.length > 0)) toast.success(t('assignView.assignSuccess.remove'));
    } catch {
      toast.error(t('assignView.assignError'));
    } finally {
      // On success the cache holds the submitted lists; on failure this restores the lists from before the moves.
      setMoves({});
    }
  };

  let body;
  if (query.isPending || group.isPending) body = <PageSpinner />;
  else if (query.isError || group.isError)
    body = (
      <div className="alert alert-danger" role="alert">
        {t('assignView.loadError')}
      </div>
    );
  else if (query.data.items.length === 0) body = <p className="text-body-secondary py-3" data-testid="assign-nodata">{t(NO_DATA[tab])}</p>;
  else
    body = (
      <AssignmentTable
        others={others}
        members={members}
        membersHeader={t(MEMBERS_HEADER[tab], { group: groupName })}
        onAssign={(item) => {
          move(item, true);
        }}
        onUnassign={(item) => {
          move(item, false);
        }}
      />
    );

  return (
    <>
      <PageTitle title={group.data ? t('assignView.title', { name: groupName }) : t('placeholder.groupAssignment')} />
      <HashTabList
        prefix={PREFIX}
        label={t('assignView.tabsLabel')}
        tabs={TABS}
        current={tab}
        labelOf={(item) => t(`adminView.tab.${item}`)}
        onSelect={select}
      />
      <div role="tabpanel" id={panelId(PREFIX, tab)} aria-labelledby={tabId(PREFIX, tab)}>
        <Form.Control
          type="search"
          className="mb-3"
          placeholder={t('assignView.search')}
          aria-label={t('assignView.search')}
          value={search}
          onChange={(event) => {
            setSearch(event.target.value);
          }}
        />
        {body}
      </div>
      <div className="d-flex flex-wrap gap-2 justify-content-end mt-3">
        <Button
          variant="outline-secondary"
          onClick={() => {
            void navigate(paths.admin.getHref('groups'));
          }}
        >
          {t('assignView.back')}
        </Button>
        <Button variant="primary" disabled={submit.isPending} onClick={() => void onSubmit()}>
          {t('assignView.submit')}
        </Button>
      </div>
    </>
  );
};
