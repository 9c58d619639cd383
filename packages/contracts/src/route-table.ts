/**
 * Every route the server answers, in one table: the API under /api, the identity provider under /idp, and the
 * system routes at the root. The server's route test checks it registers exactly these, and the fuzz suite and
 * the tenancy matrix are generated from it, so a route added here is fuzzed and checked the day it is added.
 */
import { confirmAction, getAction, listWaitingActions, streamActions } from './actions.ts';
import { createContact, deleteContact, listAdminContacts, listContacts } from './contacts.ts';
import {
  cancelDelivery,
  commandDelivery,
  confirmLoading,
  createDelivery,
  getDelivery,
  handoffDelivery,
  listDeliveries,
  listDeliveryRecipients,
  streamDeliveries,
} from './deliveries.ts';
import { commandJob, startJobNow } from './execution.ts';
import { postRobotCommand, streamRobots } from './fleet.ts';
import { createGroup, deleteGroup, getGroup, listGroups, listGroupUsers } from './groups.ts';
import { getCerts, getOpenIdConfiguration, getUserInfo, postLogout, postRevoke, postToken } from './identity.ts';
import { createJob, deleteJob, getDoses, getJob, listJobs, updateJob, updateJobNotes } from './jobs.ts';
import { EventStreamReply, streamJobs } from './live.ts';
import { getLog, getLogStatus, listLogs, updateLogNotes } from './logs.ts';
import { getLogDose } from './dose.ts';
import { getJobReportCsv, getJobReportPdf, getPeriodReport, getPeriodReportCsv, getPeriodReportPdf } from './reports.ts';
import { exportAudit, listAudit, verifyAudit } from './audit.ts';
import { createWebhook, deleteWebhook, listWebhooks, testWebhook, updateWebhook } from './webhooks.ts';
import { removeDevice, subscribe, unsubscribe } from './notifications.ts';
import {
  addRobotsToGroup,
  createRobotMqttCredentials,
  getAdminRobots,
  getFloorRobots,
  getGroupRobots,
  getRobots,
  getRobotSummary,
  removeRobotsFromGroup,
} from './robots.ts';
import {
  addRoomsToGroup,
  getAdminGroupRooms,
  getAdminRooms,
  getBuildings,
  getFloorMap,
  getFloorMapMetadata,
  getFloors,
  getRoom,
  getRoomReadiness,
  getRooms,
  removeRoomsFromGroup,
  updateRoomReadiness,
} from './rooms.ts';
import type { RouteContract } from './route.ts';
import { changeMyPassword, forgotPassword, listCaughtMail, resetPassword, setUserPassword } from './recovery.ts';
import { listLanguages, listTimezones, saveSettings } from './settings.ts';
import { getHealth, getMetrics, getRuntimeConfig } from './system.ts';
import { addUsersToGroup, createUser, deleteUser, getMyProfile, getUsername, listUsers, removeUserFromGroup } from './users.ts';

/** Where a group of routes is mounted on the server's origin. */
export const ROUTE_MOUNTS = { system: '', api: '/api', identity: '/idp' } as const;
export type RouteMount = keyof typeof ROUTE_MOUNTS;

export interface RouteTableEntry {
  readonly contract: RouteContract;
  readonly mount: RouteMount;
}

const mounted = (mount: RouteMount, contracts: readonly RouteContract[]): RouteTableEntry[] =>
  contracts.map((contract) => ({ contract, mount }));

export const ROUTE_TABLE: readonly RouteTableEntry[] = [
  ...mounted('system', [getHealth, getRuntimeConfig, getMetrics]),
  ...mounted('identity', [getOpenIdConfiguration, getCerts, postToken, postRevoke, postLogout, getUserInfo]),
  ...mounted('api', [
    createJob,
    updateJob,
    listJobs,
    getJob,
    getDoses,
    deleteJob,
    updateJobNotes,
    streamJobs,
    startJobNow,
    commandJob,
    getAction,
    listWaitingActions,
    confirmAction,
    streamActions,
    getRobots,
    getAdminRobots,
    getFloorRobots,
    getRobotSummary,
    getGroupRobots,
    addRobotsToGroup,
    removeRobotsFromGroup,
    createRobotMqttCredentials,
    postRobotCommand,
    streamRobots,
    getBuildings,
    getFloors,
    getFloorMap,
    getFloorMapMetadata,
    getRoom,
    getRooms,
    getAdminRooms,
    getAdminGroupRooms,
    getRoomReadiness,
    updateRoomReadiness,
    addRoomsToGroup,
    removeRoomsFromGroup,
    listLogs,
    getLog,
    getLogStatus,
    updateLogNotes,
    getLogDose,
    getJobReportPdf,
    getJobReportCsv,
    getPeriodReport,
    getPeriodReportPdf,
    getPeriodReportCsv,
    listAudit,
    exportAudit,
    verifyAudit,
    listWebhooks,
    createWebhook,
    updateWebhook,
    deleteWebhook,
    testWebhook,
    listUsers,
    getMyProfile,
    getUsername,
    createUser,
    deleteUser,
    addUsersToGroup,
    removeUserFromGroup,
    forgotPassword,
    resetPassword,
    setUserPassword,
    changeMyPassword,
    listCaughtMail,
    listGroups,
    getGroup,
    listGroupUsers,
    createGroup,
    deleteGroup,
    listContacts,
    listAdminContacts,
    createContact,
    deleteContact,
    listLanguages,
    listTimezones,
    saveSettings,
    subscribe,
    unsubscribe,
    removeDevice,
    createDelivery,
    listDeliveries,
    listDeliveryRecipients,
    streamDeliveries,
    getDelivery,
    cancelDelivery,
    commandDelivery,
    confirmLoading,
    handoffDelivery,
  ]),
];

/** The path of a route on the server's origin (mount prefix and contract path). */
export const routeUrl = (entry: RouteTableEntry): string => `${ROUTE_MOUNTS[entry.mount]}${entry.contract.path}`;

/** A live stream (text/event-stream that never ends) rather than a reply. */
export const isStreamRoute = (contract: RouteContract): boolean => contract.response[200] === EventStreamReply;
