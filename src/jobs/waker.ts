/**
 * Wake-ups for a worker, sent by writers after their write committed (a job sent inside the write's
 * transaction costs a queue insert per write; one sent before the commit could run too early and
 * miss the write). At most one is sent every `intervalMs`; a call inside that interval is folded
 * into one sent at its end. Every call is therefore followed by a wake-up sent after it, and under
 * load the queue sees a few wake-ups a second instead of one per write.
 */
export function trailingWaker(send: () => Promise<void>, intervalMs: number, onError: (error: unknown) => void): () => void {
  let last = 0;
  let pending: NodeJS.Timeout | undefined;
  const fire = () => {
    pending = undefined;
    last = Date.now();
    send().catch(onError);
  };
  return () => {
    if (pending) return;
    const wait = last + intervalMs - Date.now();
    if (wait <= 0) fire();
    // Unref'd: a process that stops leaves its records to the worker's start-up run and backstop.
    else pending = setTimeout(fire, wait).unref();
  };
}
