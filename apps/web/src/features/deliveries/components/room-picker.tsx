import { useTranslation } from 'react-i18next';
import { EditorSelect } from '../../../components/select-field.tsx';
import type { Choice } from '../../../components/select-field.tsx';
import { useBuildings, useFloorRooms, useFloors } from '../../../lib/site-queries.ts';
import type { RoomChoice } from './delivery-form.ts';

/** A sole building or floor is chosen for the user, as the job editor does. */
const sole = (choices: readonly Choice[] | undefined): string => (choices?.length === 1 ? (choices[0]?.value ?? '') : '');

export interface RoomPickerProps {
  /** `delivery-pickup` or `delivery-dropoff`: the selects are `{prefix}-building`, `-floor`, `-room`. */
  idPrefix: string;
  legend: string;
  value: RoomChoice;
  /** Translated error of the room, after a submit. */
  error: string | undefined;
  disabled: boolean;
  onChange: (value: RoomChoice) => void;
}

/** Building, floor and room, each waiting for the one before (the rooms API the job editor uses). */
export const RoomPicker = ({ idPrefix, legend, value, error, disabled, onChange }: RoomPickerProps) => {
  const { t } = useTranslation();
  const buildings = useBuildings();
  const buildingChoices = buildings.data?.map((building) => ({ value: building.building_id, label: building.building_name }));
  const buildingId = value.buildingId || sole(buildingChoices);
  const floors = useFloors(buildingId || null, buildingId !== '');
  const floorChoices = buildingId ? floors.data?.map((floor) => ({ value: floor.floor_id, label: floor.floor_name })) : undefined;
  const floorId = value.floorId || sole(floorChoices);
  const rooms = useFloorRooms(floorId);
  const roomChoices = floorId ? rooms.data?.map((room) => ({ value: room.room_id, label: room.room_name })) : undefined;

  return (
    <fieldset className="mb-4">
      <legend className="h5">{legend}</legend>
      <div className="row g-3">
        <div className="col-md-4">
          <EditorSelect
            id={`${idPrefix}-building`}
            label={t('jobEditor.building')}
            value={buildingId}
            choices={buildingChoices}
            loading={buildings.isPending}
            failed={buildings.isError}
            disabled={disabled}
            onChange={(next) => {
              onChange({ buildingId: next, floorId: '', roomId: '' });
            }}
          />
        </div>
        <div className="col-md-4">
          <EditorSelect
            id={`${idPrefix}-floor`}
            label={t('jobEditor.floor')}
            value={floorId}
            choices={floorChoices}
            loading={buildingId !== '' && floors.isPending}
            failed={floors.isError}
            disabled={disabled || buildingId === ''}
            onChange={(next) => {
              onChange({ buildingId, floorId: next, roomId: '' });
            }}
          />
        </div>
        <div className="col-md-4">
          <EditorSelect
            id={`${idPrefix}-room`}
            label={t('jobEditor.room')}
            value={value.roomId}
            choices={roomChoices}
            loading={floorId !== '' && rooms.isPending}
            failed={rooms.isError}
            emptyText={t('jobEditor.noRooms')}
            error={error}
            disabled={disabled || floorId === ''}
            onChange={(next) => {
              onChange({ buildingId, floorId, roomId: next });
            }}
          />
        </div>
      </div>
    </fieldset>
  );
};
