// Robot commands and the robot stream.
export {};
