import { useTranslation } from 'react-i18next';
import type { MapRoom, Robot } from '@uvd/contracts';
import { roomAt } from '../room-at.ts';

/** Where a robot is, as a person on the ward says it: the room it is in, or the corridor outside every room. */
export const RobotPlace = ({ robot, rooms }: { robot: Pick<Robot, 'name' | 'pose'>; rooms: readonly MapRoom[] }) => {
  const { t } = useTranslation();
  const room = robot.pose ? roomAt(rooms, robot.pose) : null;
  return <>{room ? t('map.robotInRoom', { name: robot.name, room: room.room_name }) : t('map.robotInCorridor', { name: robot.name })}</>;
};
