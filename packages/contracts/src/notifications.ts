// Contracts of the notifications backend (spec §3, §7).
export {};
