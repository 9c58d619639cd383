import { useState } from 'react';
import { flushSync } from 'react-dom';
import { Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { toast } from '../../../lib/toast.ts';
import { useEditorDoses } from '../api/job-editor-queries.ts';
import { useFloorRooms } from '../../../lib/site-queries.ts';
import type { EditorChange, EditorRoom } from './job-editor-form.ts';
import { EditorSelect } from '../../../components/select-field.tsx';

export const ROOM_SELECT_ID = 'job-room';

const moveButtonId = (room: EditorRoom, by: -1 | 1) => `job-room-${room.room_id}-${by === -1 ? 'up' : 'down'}`;

export interface JobEditorRoomsProps {
  /** The chosen floor ('' when none): its rooms are offered. */
  floorId: string;
  rooms: readonly EditorRoom[];
  /** Translated "at least one room" message, after a submit. */
  error: string | undefined;
  disabled: boolean;
  onChange: (change: EditorChange) => void;
}

/**
 * Behaviour §2 room sub-form: a dose and a room select; choosing a room appends it at once (a room already in the job
 * is refused with the duplicate-room toast, behaviour §5). Below, the rooms as cards in job order with their own dose
 * select, move up, move down and remove; the cards stack in one column at 768 px or less (job-editor.css).
 */
export const JobEditorRooms = ({ floorId, rooms, error, disabled, onChange }: JobEditorRoomsProps) => {
  const { t } = useTranslation();
  const doses = useEditorDoses();
  const floorRooms = useFloorRooms(floorId);
  const [chosenDose, setChosenDose] = useState('');
  // The room select resets after each choice, so screen readers hear what was added.
  const [announcement, setAnnouncement] = useState('');

  const offered = doses.data?.uvc_doses ?? [];
  const fallbackDose = doses.data?.default_dose != null && offered.includes(doses.data.default_dose) ? doses.data.default_dose : offered[0];
  const dose = chosenDose || (fallbackDose === undefined ? '' : String(fallbackDose));
  // A saved dose the organization no longer offers stays choosable on its card until it is changed.
  const doseChoices = (current: number) => (offered.includes(current) ? offered : [...offered, current].sort((a, b) => a - b));
  const nameOf = (room: EditorRoom) =>
    room.room_name || floorRooms.data?.find((candidate) => candidate.room_id === room.room_id)?.room_name || room.room_id;

  const choose = (roomId: string) => {
    const room = floorRooms.data?.find((candidate) => candidate.room_id === roomId);
    // Behaviour §5: the dose is parsed as an integer.
    const parsedDose = Number.parseInt(dose, 10);
    if (!room || Number.isNaN(parsedDose)) return;
    if (rooms.some((added) => added.room_id === roomId)) {
      toast.error(t('jobEditor.duplicateRoom'));
      return;
    }
    onChange({ type: 'addRoom', room: { room_id: room.room_id, room_name: room.room_name, dose: parsedDose } });
    setAnnouncement(t('jobEditor.roomAdded', { room: room.room_name }));
  };

  // A card moved to either end disables the button just used; the focus goes to the card's other move button.
  const move = (room: EditorRoom, index: number, by: -1 | 1) => {
    const target = index + by;
    flushSync(() => {
      onChange({ type: 'moveRoom', index, by });
    });
    if (target === 0 || target === rooms.length - 1) document.getElementById(moveButtonId(room, by === -1 ? 1 : -1))?.focus();
  };

  return (
    <fieldset className="mb-4">
      <legend className="h5">{t('jobEditor.rooms')}</legend>
      <div className="row g-3 mb-3">
        <div className="col-sm-4">
          <EditorSelect
            id="job-dose"
            label={t('jobEditor.dose')}
            value={dose}
            choices={doses.data?.uvc_doses.map((value) => ({ value: String(value), label: String(value) }))}
            loading={doses.isPending}
            failed={doses.isError}
            emptyText={t('jobEditor.noDoses')}
            placeholder={offered.length === 0}
            disabled={disabled || offered.length === 0}
            onChange={setChosenDose}
          />
        </div>
        <div className="col-sm-8">
          <EditorSelect
            id={ROOM_SELECT_ID}
            label={t('jobEditor.room')}
            // The select only picks: the chosen room becomes a card and the select is ready for the next one.
            value=""
            choices={floorId ? floorRooms.data?.map((room) => ({ value: room.room_id, label: room.room_name })) : undefined}
            loading={floorId !== '' && floorRooms.isPending}
            failed={floorRooms.isError}
            emptyText={t('jobEditor.noRooms')}
            hint={t('jobEditor.roomHint')}
            error={error}
            disabled={disabled || floorId === '' || dose === '' || !floorRooms.data?.length}
            onChange={choose}
          />
        </div>
      </div>
      <div className="visually-hidden" role="status">
        {announcement}
      </div>
      {rooms.length === 0 ? (
        <p className="text-body-secondary">{t('jobEditor.noRoomsAdded')}</p>
      ) : (
        <ol className="job-editor-rooms list-unstyled mb-0" aria-label={t('jobEditor.rooms')}>
          {rooms.map((room, index) => {
            const name = nameOf(room);
            return (
              <li key={room.room_id} className="card" data-testid="job-room-card">
                <div className="card-body d-flex align-items-center gap-2 p-2">
                  <span className="job-editor-room-order" aria-hidden="true">
                    {index + 1}
                  </span>
                  <div className="flex-grow-1 text-break">
                    <span className="visually-hidden">{t('jobEditor.roomOrder', { order: index + 1 })}: </span>
                    <span className="fw-bold">{name}</span>
                    <div className="d-flex align-items-center gap-2 mt-1 small text-body-secondary">
                      {/* The visible word; the select's own name says which room, as the move buttons do. */}
                      <span aria-hidden="true">{t('jobEditor.dose')}</span>
                      <Form.Select
                        size="sm"
                        className="w-auto"
                        id={`job-room-${room.room_id}-dose`}
                        aria-label={t('jobEditor.roomDose', { room: name })}
                        value={String(room.dose)}
                        disabled={disabled}
                        onChange={(event) => {
                          const chosen = Number.parseInt(event.target.value, 10);
                          if (!Number.isNaN(chosen)) onChange({ type: 'roomDose', index, dose: chosen });
                        }}
                      >
                        {doseChoices(room.dose).map((value) => (
                          <option key={value} value={value}>
                            {value}
                          </option>
                        ))}
                      </Form.Select>
                    </div>
                  </div>
                  <div className="d-flex gap-1 flex-shrink-0">
                    <Button
                      size="sm"
                      variant="outline-secondary"
                      id={moveButtonId(room, -1)}
                      aria-label={`${t('jobEditor.moveUp')}: ${name}`}
                      title={t('jobEditor.moveUp')}
                      disabled={disabled || index === 0}
                      onClick={() => {
                        move(room, index, -1);
                      }}
                    >
                      ↑
                    </Button>
                    <Button
                      size="sm"
                      variant="outline-secondary"
                      id={moveButtonId(room, 1)}
                      aria-label={`${t('jobEditor.moveDown')}: ${name}`}
                      title={t('jobEditor.moveDown')}
                      disabled={disabled || index === rooms.length - 1}
                      onClick={() => {
                        move(room, index, 1);
                      }}
                    >
                      ↓
                    </Button>
                    <Button
                      size="sm"
                      variant="outline-danger"
                      aria-label={`${t('jobEditor.remove')}: ${name}`}
                      title={t('jobEditor.remove')}
                      disabled={disabled}
                      onClick={() => {
                        onChange({ type: 'removeRoom', index });
                        document.getElementById(ROOM_SELECT_ID)?.focus();
                      }}
                    >
                      ✕
                    </Button>
                  </div>
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </fieldset>
  );
};
