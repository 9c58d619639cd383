export declare const SERVER_NODE_FLAGS: string[];
export declare const SERVER_MALLOC_ENV: { MALLOC_MMAP_THRESHOLD_: string };
