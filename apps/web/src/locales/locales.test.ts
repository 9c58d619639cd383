import { describe, expect, it } from 'vitest';
import en from './en.json';
import fi from './fi.json';
import se from './se.json';

type Tree = { [key: string]: string | Tree };
const flatten = (tree: Tree, prefix = ''): Map<string, string> => {
  const keys = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') keys.set(`${prefix}${key}`, value);
    else for (const [child, text] of flatten(value, `${prefix}${key}.`)) keys.set(child, text);
  }
  return keys;
};
const locales = { en: flatten(en), fi: flatten(fi), se: flatten(se) };

/** Every key docs/behaviour.md names (§2, §5, §8), and the groups it names with a star. */
const SPEC_KEYS = [
  'signInForm.error',
  'validation.required',
  'profileInfo.error',
  'profileInfo.contactError',
  'profileInfo.noContacts',
  'adminView.tab.users',
  'adminView.tab.locations',
  'adminView.tab.robots',
  'assignView.loadError',
  'assignView.empty',
  'assignView.assignError',
  'assignView.assignSuccess.add',
  'assignView.assignSuccess.remove',
  'assignView.locationsTab.nodata',
  'assignView.robotsTab.nodata',
  'assignView.usersTab.nodata',
  'addUser.firstNameError',
  'addUser.lastNameError',
  'addUser.emailError',
  'addUser.passwordError',
  'addContact.titleError',
  'addContact.nameError',
  'addContact.phoneError',
  'addContact.emailError',
  'addGroup.nameError',
  'addRobot.nameError',
  'jobControls.errorJobRunning',
  'jobControls.startFail',
  'jobControls.startSuccess',
  'jobControls.resumeSuccess',
  'jobControls.resumeFail',
  'jobControls.pauseSuccess',
  'jobControls.pauseFail',
  'jobControls.stopSuccess',
  'jobControls.stopFail',
  'jobControls.deleteSuccess',
  'jobControls.deleteFail',
  'robotControls.commandSuccess',
  'robotControls.commandFail',
  'logDetail.success',
  'logDetail.failure',
  'logDetail.error',
  'logDetail.nodata',
  'jobEditor.error',
  'jobTable.error',
  'logTable.error',
  'robotTable.error',
];

/** Behaviour §5 and §8 English texts, verbatim. */
const SPEC_TEXTS: Record<string, string> = {
  'validation.required': 'Required',
  'validation.invalidEmail': 'Invalid email',
  'addUser.emailError': 'Invalid email format',
  'addUser.passwordError': 'Password should be at least 8 characters long',
  'addContact.titleError': 'Title is required',
  'addContact.nameError': 'Full name is required',
  'addContact.phoneError': 'Phone Number is required',
  'addContact.emailError': 'Invalid email format',
  'addGroup.nameError': 'Group name is required.',
  'addRobot.nameError': 'Robot name is required.',
  'adminView.loadError': 'Failed to load data.',
  'adminView.userNotCreated': 'User was not created',
  'adminView.groupNotCreated': 'Group was not created',
  'adminView.contactNotCreated': 'Contact was not created',
  'adminView.userNotDeleted': 'User was not deleted',
  'adminView.groupNotDeleted': 'Group was not deleted',
  'adminView.contactNotDeleted': 'Contact was not deleted',
  'assignView.another': 'another',
  'jobEditor.roomsRequired': 'At least one room is required for job creation',
  'jobEditor.duplicateRoom': 'Duplicate room. A room can only be once in a job.',
  'signInForm.invalidCredentials': 'Invalid credentials!',
  'robotControls.sendFailed': 'Failed to send the command',
  'roles.done-teleoperator': 'User',
  'roles.done-admin': 'Admin',
  'roles.done-superadmin': 'Super Admin',
  // Issue #22 words the not_disinfected (Aborted) label of behaviour §3 whole, so it cannot read as a job status.
  'roomResult.not_disinfected': 'Not disinfected (Aborted)',
  'map.noRobotSelected': 'No robot selected',
  'map.loadFailed': 'Failed to load map',
};

/** Behaviour §3 value sets that need a label in every language. */
const SPEC_GROUPS: Record<string, string[]> = {
  actions: ['skip', 'wait', 'wait_to_enter', 'wait_next_room', 'wait_to_disinfect', 'go_home', 'continue', 'charge'],
  robotModes: ['0', '1', '2', '3', '4'],
  deliveryStatus: ['0', '1', '2', '3', '4', '5', '6'],
  roomResult: ['disinfected', 'not_disinfected', 'not_ready', 'not_reached'],
  jobStatus: ['Running', 'Scheduled', 'Completed', 'disinfecting', 'paused'],
};

/** Words that are the same in the other language (international words, names of the languages themselves). */
const SAME_AS_ENGLISH = new Set([
  'common.ok',
  'filter.ok',
  'profileInfo.contactBlock',
  // Only placeholders: a robot's name and its job's, or its question.
  'map.robotJob',
  'promptBanner.prompt',
  'languages.en',
  'languages.fi',
  'languages.se',
  // Swedish: Status, Robot, Signal, Filter, Administration
  'se:robotTable.status',
  'se:robotTable.signal',
  'se:jobTable.status',
  'se:jobTable.robot',
  'se:filter.title',
  'se:jobEditor.robot',
  'se:logTable.status',
  'se:logTable.robot',
  'se:logDetail.robot',
  'se:logDetail.status',
  'se:adminView.title',
  'se:filter.statuses',
  'se:map.zoomLevel',
  // Only placeholders: the pickup and drop-off rooms' names.
  'deliveries.fromTo',
  'se:deliveries.robot',
  // SI units, and a range that is only its bounds (Finnish writes it as English does).
  'dose.jPerM2',
  'dose.mjPerCm2',
  'fi:dose.range',
  // Swedish: Period
  'se:reports.period',
]);

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((match) => match[1]).sort();

describe('locales (behaviour §1: en, fi, se)', () => {
  it('have the same keys in every language', () => {
    const english = [...locales.en.keys()].sort();
    expect([...locales.fi.keys()].sort()).toEqual(english);
    expect([...locales.se.keys()].sort()).toEqual(english);
  });

  it('hold every key docs/behaviour.md names, and each value set of behaviour §3', () => {
    for (const [language, keys] of Object.entries(locales)) {
      for (const key of SPEC_KEYS) expect(keys.has(key), `${language}: ${key}`).toBe(true);
      for (const [group, values] of Object.entries(SPEC_GROUPS)) {
        for (const value of values) expect(keys.has(`${group}.${value}`), `${language}: ${group}.${value}`).toBe(true);
      }
    }
  });

  it("use the English texts of behaviour §5 and §8 verbatim", () => {
    for (const [key, text] of Object.entries(SPEC_TEXTS)) expect(locales.en.get(key), key).toBe(text);
  });

  it('are real translations: no empty text, the same placeholders, no English copies', () => {
    for (const language of ['fi', 'se'] as const) {
      for (const [key, english] of locales.en) {
        const text = locales[language].get(key) ?? '';
        expect(text.trim(), `${language}: ${key}`).not.toBe('');
        expect(placeholders(text), `${language}: ${key}`).toEqual(placeholders(english));
        if (!SAME_AS_ENGLISH.has(key) && !SAME_AS_ENGLISH.has(`${language}:${key}`)) {
          expect(text, `${language}: ${key} is an English copy`).not.toBe(english);
        }
      }
    }
  });

  it('cover every literal key the source passes to t()', () => {
    const sources = import.meta.glob<string>(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}'], { query: '?raw', import: 'default', eager: true });
    const used = new Set<string>();
    for (const source of Object.values(sources)) {
      for (const match of source.matchAll(/\bt\(\s*'([^']+)'/g)) if (match[1]) used.add(match[1]);
    }
    expect(used.size).toBeGreaterThan(30);
    for (const key of used) expect(locales.en.has(key), key).toBe(true);
  });
});
