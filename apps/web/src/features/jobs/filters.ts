/** The token a job's notes may hold for its current room (behaviour §2), replaced by localized text. */
export const CURRENT_ROOM_PLACEHOLDER = '{{current_room}}';
