// Job start, job commands.
export {};
