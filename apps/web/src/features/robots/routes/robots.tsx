import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/page-title.tsx';
import { hasRestrictedRole, useAuth } from '../../../lib/auth/auth-context.tsx';
import { useLiveRobotList } from '../../../lib/robot-list.ts';
import { RobotDialog } from '../components/robot-dialog.tsx';
import { RobotTable } from '../components/robot-table.tsx';

/** Behaviour §2 /robots: the live robots table and the robot dialog. */
export const RobotsRoute = () => {
  const { t } = useTranslation();
  const { user } = useAuth();
  const robots = useLiveRobotList();
  const [openId, setOpenId] = useState<string | null>(null);
  const list = robots.data?.payload;
  // Looked up on every render, so the dialog shows the live values of the cached robot.
  const openRobot = openId === null ? undefined : list?.find((robot) => robot.robot_id === openId);

  return (
    <>
      <PageTitle title={t('nav.robots')} />
      {robots.isError ? (
        <div className="alert alert-danger" role="alert">
          {t('robotTable.error')}
        </div>
      ) : (
        <RobotTable robots={list} loading={robots.isPending} onOpen={setOpenId} />
      )}
      <RobotDialog
        robot={openRobot}
        showMode={hasRestrictedRole(user)}
        onClose={() => {
          setOpenId(null);
        }}
      />
    </>
  );
};
