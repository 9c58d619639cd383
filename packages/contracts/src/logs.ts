// Contracts of the logs backend (spec §3, §7).
export {};
