import { useMutation } from '@tanstack/react-query';
import { exportAudit } from '@uvd/contracts';
import type { AuditListQuery } from '@uvd/contracts';
import { backendOf, pathOf, serialiseQuery } from '../../../lib/api-client.ts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { statusError, toApiRequestError } from '../../../lib/api-error.ts';

export type AuditExportQuery = Omit<AuditListQuery, 'offset' | 'limit'>;

/**
 * The entries matching the filters as NDJSON (oldest first, with their hashes), as a Blob to save. Not through
 * `api.request`: that parses a reply as JSON, and an export of one entry is a JSON line a string schema refuses.
 * The same call otherwise: the backend's base address and the session's bearer token (a GET needs no XSRF header).
 */
export const getAuditExport = async (api: ApiClient, query: AuditExportQuery, signal?: AbortSignal): Promise<Blob> => {
  const url = new URL(`${api.baseUrl(backendOf(exportAudit.path)).replace(/\/+$/, '')}${pathOf(exportAudit, undefined)}`, location.href);
  url.search = serialiseQuery(query).toString();
  const headers = new Headers({ Accept: exportAudit.produces });
  const token = api.getAccessToken();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  let response: Response;
  try {
    response = await fetch(url, { headers, signal });
  } catch (error) {
    throw toApiRequestError(error, signal);
  }
  if (!response.ok) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      // Not JSON: statusError keeps the status alone.
    }
    throw statusError(response.status, body);
  }
  return new Blob([await response.text()], { type: 'application/x-ndjson' });
};

/** Saves a Blob under a file name through a temporary link: the browser's own download. */
export const saveBlob = (blob: Blob, fileName: string): void => {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click has been handled: revoking at once can cancel the download in some browsers.
  setTimeout(() => {
    URL.revokeObjectURL(href);
  }, 0);
};

export const useAuditExport = () => {
  const api = useApi();
  return useMutation({ mutationFn: (query: AuditExportQuery) => getAuditExport(api, query) });
};
