/**
 * Who and what the demo organizations hold. The credentials are listed in ./README.md; keep them in step.
 * `demo` is the hospital a new install opens with; `northwind` exists to show that one realm never sees another
 * (it reuses the usernames `admin` and `operator` on purpose: the realm decides who signs in).
 */
import type { Role, RobotKind } from '@uvd/contracts';
import { CLINIC_BUILDINGS, generateClinic, generateHospital, HOSPITAL_BUILDINGS, type Hospital } from './hospital.ts';

export interface DemoUser {
  username: string;
  password: string;
  roles: Role[];
  firstName: string;
  lastName: string;
  email: string;
  groups: string[];
}

export interface DemoRobot {
  name: string;
  serialNumber: string;
  building: string;
  /** The floor's level in its building. */
  level: number;
  groups: string[];
  /** 'disinfection' when left out. */
  kind?: RobotKind;
  /** Metres along the corridor from the floor's parking spot by the lifts, so robots of one floor do not stand on each other. */
  homeOffsetX?: number;
}

export interface DemoGroup {
  name: string;
  /** Every room of these buildings is in the group. */
  buildings: string[];
}

export interface DemoContact {
  title: string;
  name: string;
  phone: string;
  email: string;
}

export interface DemoOrganization {
  id: string;
  name: string;
  uvcDoses: number[];
  defaultDose: number;
  site: Hospital;
  groups: DemoGroup[];
  users: DemoUser[];
  robots: DemoRobot[];
  contacts: DemoContact[];
  /** Days of finished jobs (with logs) before today, and the days ahead holding scheduled jobs. */
  historyDays: number;
  scheduledDays: number;
  seed: number;
  /**
   * What `VARIANT=logistics` adds (demo-seed.ts `seedLogistics`): delivery robots and the people who send and
   * receive deliveries. Added once, to a new database or to one first seeded without it.
   */
  logistics?: { users: DemoUser[]; robots: DemoRobot[] };
}

/**
 * A site made on first use and kept: drawing the floor plans (room labels at their poles of inaccessibility) took most
 * of a second of CPU at every server start, which needs them only to seed a new database.
 */
const once = (make: () => Hospital): (() => Hospital) => {
  let made: Hospital | undefined;
  return () => (made ??= make());
};

const hospital = once(generateHospital);
const [buildingA, buildingB] = HOSPITAL_BUILDINGS;
if (!buildingA || !buildingB) throw new Error('the demo hospital has two buildings');

export const DEMO: DemoOrganization = {
  id: 'demo',
  name: 'Demo Hospital',
  uvcDoses: [10, 20, 30, 50, 100],
  defaultDose: 30,
  get site() {
    return hospital();
  },
  groups: [
    { name: 'Ward A', buildings: [buildingA] },
    { name: 'Ward B', buildings: [buildingB] },
  ],
  users: [
    { username: 'superadmin', password: 'superadmin-demo-1', roles: ['done-superadmin'], firstName: 'Aino', lastName: 'Virtanen', email: 'aino.virtanen@demo-hospital.example', groups: [] },
    { username: 'admin', password: 'admin-demo-1', roles: ['done-admin'], firstName: 'Mikko', lastName: 'Korhonen', email: 'mikko.korhonen@demo-hospital.example', groups: ['Ward A', 'Ward B'] },
    { username: 'operator', password: 'operator-demo-1', roles: ['done-teleoperator'], firstName: 'Laura', lastName: 'Nieminen', email: 'laura.nieminen@demo-hospital.example', groups: ['Ward A'] },
    { username: 'operator2', password: 'operator2-demo-1', roles: ['done-teleoperator'], firstName: 'Juha', lastName: 'Mäkinen', email: 'juha.makinen@demo-hospital.example', groups: ['Ward B'] },
  ],
  robots: [
    { name: 'UVD-1', serialNumber: 'UVDR-23-0101', building: buildingA, level: 1, groups: ['Ward A'] },
    { name: 'UVD-2', serialNumber: 'UVDR-23-0102', building: buildingA, level: 3, groups: ['Ward A'] },
    { name: 'UVD-3', serialNumber: 'UVDR-23-0103', building: buildingB, level: 1, groups: ['Ward B'] },
    { name: 'UVD-4', serialNumber: 'UVDR-23-0104', building: buildingB, level: 2, groups: ['Ward B'] },
  ],
  contacts: [
    { title: 'Technical support', name: 'UVD Robots Support', phone: '+358 9 4155 0100', email: 'support@uvd-robots.example' },
    { title: 'Facility manager', name: 'Petri Lahtinen', phone: '+358 40 712 3456', email: 'petri.lahtinen@demo-hospital.example' },
    { title: 'Infection control nurse', name: 'Sanna Heikkinen', phone: '+358 50 498 2210', email: 'sanna.heikkinen@demo-hospital.example' },
    { title: 'IT service desk', name: 'Hospital IT Service Desk', phone: '+358 9 4711 2000', email: 'servicedesk@demo-hospital.example' },
  ],
  historyDays: 14,
  scheduledDays: 3,
  seed: 7,
  logistics: {
    users: [
      { username: 'nurse-a', password: 'nurse-a-demo-1', roles: ['done-teleoperator'], firstName: 'Elina', lastName: 'Laine', email: 'elina.laine@demo-hospital.example', groups: ['Ward A'] },
      { username: 'nurse-b', password: 'nurse-b-demo-1', roles: ['done-teleoperator'], firstName: 'Tuomas', lastName: 'Salo', email: 'tuomas.salo@demo-hospital.example', groups: ['Ward B'] },
      { username: 'lab', password: 'lab-demo-1', roles: ['done-teleoperator'], firstName: 'Riikka', lastName: 'Koskinen', email: 'riikka.koskinen@demo-hospital.example', groups: ['Ward A', 'Ward B'] },
      { username: 'pharmacy', password: 'pharmacy-demo-1', roles: ['done-teleoperator'], firstName: 'Ville', lastName: 'Heinonen', email: 'ville.heinonen@demo-hospital.example', groups: ['Ward A', 'Ward B'] },
    ],
    robots: [
      { name: 'DLV-1', serialNumber: 'UVDL-26-0201', building: buildingA, level: 1, groups: ['Ward A'], kind: 'delivery', homeOffsetX: 1.5 },
      { name: 'DLV-2', serialNumber: 'UVDL-26-0202', building: buildingA, level: 2, groups: ['Ward A'], kind: 'delivery', homeOffsetX: 1.5 },
      { name: 'DLV-3', serialNumber: 'UVDL-26-0203', building: buildingA, level: 3, groups: ['Ward A'], kind: 'delivery', homeOffsetX: 1.5 },
      { name: 'DLV-4', serialNumber: 'UVDL-26-0204', building: buildingB, level: 1, groups: ['Ward B'], kind: 'delivery', homeOffsetX: 1.5 },
    ],
  },
};

const clinic = once(generateClinic);
const clinicBuilding = CLINIC_BUILDINGS[0] ?? 'Main building';

export const NORTHWIND: DemoOrganization = {
  id: 'northwind',
  name: 'Northwind Clinic',
  uvcDoses: [20, 40, 60],
  defaultDose: 40,
  get site() {
    return clinic();
  },
  groups: [{ name: 'Clinic', buildings: [clinicBuilding] }],
  users: [
    { username: 'admin', password: 'northwind-admin-1', roles: ['done-admin'], firstName: 'Grace', lastName: 'Holm', email: 'grace.holm@northwind-clinic.example', groups: [] },
    { username: 'operator', password: 'northwind-operator-1', roles: ['done-teleoperator'], firstName: 'Oskar', lastName: 'Lindqvist', email: 'oskar.lindqvist@northwind-clinic.example', groups: ['Clinic'] },
  ],
  robots: [{ name: 'NW-UVD-1', serialNumber: 'UVDR-23-0877', building: clinicBuilding, level: 1, groups: ['Clinic'] }],
  contacts: [{ title: 'Clinic manager', name: 'Grace Holm', phone: '+358 44 301 7788', email: 'grace.holm@northwind-clinic.example' }],
  historyDays: 3,
  scheduledDays: 1,
  seed: 11,
};

export const DEMO_ORGANIZATIONS: readonly DemoOrganization[] = [DEMO, NORTHWIND];
