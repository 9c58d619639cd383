/**
 * A test of how fast the server is for its clients shares this machine with the other test files' workers (four on
 * two cores) and their databases: on a busy machine their work, not the server's, decided its measure (a reconnect
 * storm whose server thread took 3.6 s on an idle machine took 11.5 s beside eight busy loops). Such a test raises
 * the priority of the threads it measures for as long as it measures, as a deployed server has its machine: beside
 * the same eight loops, the storm took 3.6 s again. Where raising is not allowed (not root, no CAP_SYS_NICE), the
 * thread runs at its usual priority and the test measures a shared machine.
 */
import { getPriority, setPriority } from 'node:os';

/** Nice -10: about nine times the CPU share of a thread at the usual priority (0) when both want a core. */
const RAISED = -10;

/** Raises the calling thread's priority (Linux: setpriority applies to the thread); returns what puts it back. */
export function raiseThreadPriority(): () => void {
  const was = getPriority();
  try {
    setPriority(RAISED);
  } catch {
    return () => undefined;
  }
  return () => {
    setPriority(was);
  };
}
