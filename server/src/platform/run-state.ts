/**
 * Where a process's run of one kind of background work stands (webhook deliveries, review pre-checks): an
 * Agenda job woken by NOTIFY, with a timed sweep under it for a wake-up that was lost. Only its runner moves it.
 */
export enum RunState {
  /** No run here: a wake-up asks Agenda for one. */
  IDLE = 'idle',
  /**
   * A run was asked of Agenda. Agenda gives it to whichever worker locks it first, so this proves nothing
   * about this process: it only says the asking is done.
   */
  QUEUED = 'queued',
  /** The job runs here: it claims (SKIP LOCKED, under a lease) and works until nothing is left. */
  RUNNING = 'running',
  /** stop() was called: no more claims or runs; what is in flight finishes. */
  STOPPING = 'stopping',
  /** Stopped. */
  STOPPED = 'stopped',
}
