// Contracts of the contacts backend (spec §3, §7).
export {};
