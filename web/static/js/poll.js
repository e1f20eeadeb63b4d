// poll.js refreshes a view on a short interval while the tab is visible. It waits for each
// refresh to finish before scheduling the next, so a slow server never gets overlapping
// requests, and refreshes at once when the tab becomes visible again.

/**
 * poll calls fn now and every interval ms until signal aborts; onError gets failures (the
 * loop continues, so the view recovers by itself when the server is back).
 */
export function poll(signal, interval, fn, onError) {
  let timer = 0;
  let running = false;
  const run = async () => {
    clearTimeout(timer);
    if (signal.aborted || document.hidden || running) return;
    running = true;
    try {
      await fn();
    } catch (err) {
      if (signal.aborted || (err && err.name === 'AbortError')) return;
      if (onError) onError(err);
    } finally {
      running = false;
    }
    if (!signal.aborted && !document.hidden) timer = setTimeout(run, interval);
  };
  const onVisibility = () => {
    if (!document.hidden) run();
    else clearTimeout(timer);
  };
  document.addEventListener('visibilitychange', onVisibility);
  signal.addEventListener('abort', () => {
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', onVisibility);
  });
  return run();
}
