/**
 * `npm run site:import`: writes a loaded site file into its organization in one transaction, creating the
 * organization when it is new. Everything the file can get wrong is checked before anything is written, and
 * what needs the database (doses the organization offers) is checked inside the transaction, which then rolls back.
 */
import { eq } from 'drizzle-orm';
import { OrganizationId } from '@uvd/contracts';
import type { Db } from '../db/client.ts';
import { organizations } from '../db/schema.ts';
import { loadSiteFile, SiteImportError, type LoadedSite } from './site-file.ts';
import { writeSite, type WriteCounts } from './site-writer.ts';

export interface ImportOptions {
  /** Overrides `organization.id` of the file (`--org`). */
  orgId?: string | undefined;
  /** Names the source in error messages. */
  source?: string;
}

export interface ImportSummary {
  organization: string;
  organizationCreated: boolean;
  buildings: WriteCounts;
  floors: WriteCounts;
  rooms: WriteCounts;
  robots: WriteCounts;
}

export async function importSite(db: Db, loaded: LoadedSite, options: ImportOptions = {}): Promise<ImportSummary> {
  const source = options.source ?? 'site file';
  const orgId = options.orgId ?? loaded.organization.id;
  if (!orgId) throw new SiteImportError(source, [{ path: 'organization.id', message: 'is required, in the file or with --org' }]);
  if (!OrganizationId.safeParse(orgId).success)
    throw new SiteImportError(source, [{ path: options.orgId ? '--org' : 'organization.id', message: 'must be lowercase letters, digits and dashes' }]);
  const { organization } = loaded;

  const imported = db.transaction(async (tx) => {
    const [existing] = await tx.select().from(organizations).where(eq(organizations.id, orgId));
    const doses = organization.uvcDoses ?? existing?.uvcDoses ?? [];
    const problems = loaded.roomDosePaths
      .filter((room) => doses.length > 0 && !doses.includes(room.dose))
      .map((room) => ({ path: room.path, message: `${room.dose} is not one of the organization's doses (${doses.join(', ')})` }));
    const defaultDose = organization.defaultDose ?? existing?.defaultDose ?? null;
    if (organization.defaultDose === undefined && organization.uvcDoses && defaultDose !== null && !doses.includes(defaultDose))
      problems.push({ path: 'organization.uvc_doses', message: `does not hold the organization's default dose ${defaultDose}` });
    if (problems.length > 0) throw new SiteImportError(source, problems);

    if (existing) {
      await tx
        .update(organizations)
        .set({ name: organization.name ?? existing.name, uvcDoses: doses, defaultDose })
        .where(eq(organizations.id, orgId));
    } else {
      await tx.insert(organizations).values({ id: orgId, name: organization.name ?? orgId, uvcDoses: doses, defaultDose });
    }
    const written = await writeSite(tx, orgId, loaded.site);
    return {
      organization: orgId,
      organizationCreated: !existing,
      buildings: written.buildings,
      floors: written.floors,
      rooms: written.rooms,
      robots: written.robots,
    };
  });
  // What the writer finds wrong (a robot of another organization, ...) is named after this file too.
  return imported.catch((error: unknown) => {
    throw error instanceof SiteImportError ? new SiteImportError(source, error.problems) : error;
  });
}

export async function importSiteFile(db: Db, file: string, options: ImportOptions = {}): Promise<ImportSummary> {
  return importSite(db, await loadSiteFile(file), { source: file, ...options });
}
