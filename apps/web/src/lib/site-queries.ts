import { useQuery } from '@tanstack/react-query';
import { getBuildings, getFloorMap, getFloorMapMetadata, getFloors, getRooms } from '@uvd/contracts';
import { useApi } from './api-context.tsx';

/** Behaviour §9: robots, rooms, floors and buildings are listed 50 at a time from offset 0. */
export const LIST_PAGE = { offset: 0, limit: 50 } as const;

/** The buildings the user may see; one cache entry shared by the map and the job editor. */
export const useBuildings = () => {
  const api = useApi();
  return useQuery({
    queryKey: ['site', 'buildings'] as const,
    queryFn: async ({ signal }) => (await api.request(getBuildings, { query: LIST_PAGE, signal })).data,
  });
};

/** Floors of one building; with null, every floor (the map finds the building of a job's floor that way). */
export const useFloors = (buildingId: string | null, enabled = true) => {
  const api = useApi();
  return useQuery({
    queryKey: ['site', 'floors', buildingId] as const,
    queryFn: async ({ signal }) =>
      (await api.request(getFloors, { query: buildingId === null ? LIST_PAGE : { ...LIST_PAGE, building_id: buildingId }, signal })).data,
    enabled,
  });
};

/** A floor's plan as SVG text; shared by the map and a log's trajectory map. */
export const useFloorMapImage = (floorId: string | null) => {
  const api = useApi();
  return useQuery({
    queryKey: ['map', 'floor-image', floorId] as const,
    queryFn: ({ signal }) => api.request(getFloorMap, { query: { floor_id: floorId ?? '', image_format: 'svg' }, signal }),
    enabled: floorId !== null,
  });
};

/** Where a floor's plan lies in metres, and its rooms' outlines. */
export const useFloorMapMetadata = (floorId: string | null) => {
  const api = useApi();
  return useQuery({
    queryKey: ['map', 'floor-metadata', floorId] as const,
    queryFn: ({ signal }) => api.request(getFloorMapMetadata, { query: { floor_id: floorId ?? '' }, signal }),
    enabled: floorId !== null,
  });
};

/** The rooms of one floor ('' = none chosen: not read); shared by the job editor and the delivery form. */
export const useFloorRooms = (floorId: string) => {
  const api = useApi();
  return useQuery({
    queryKey: ['site', 'rooms', floorId] as const,
    queryFn: async ({ signal }) => (await api.request(getRooms, { query: { ...LIST_PAGE, floor_id_list: [floorId] }, signal })).data,
    enabled: floorId !== '',
  });
};
