// events.js keeps a view live from /api/v1/events, the server's stream of new revisions.
// EventSource cannot send the Authorization header the API needs, so the stream is read
// with fetch() and the Bearer token: the token never goes into a URL, where access logs
// and the browser history would keep it. When the stream cannot be opened or breaks, the
// view falls back to polling, and says so on its live indicator.
import { poll } from './poll.js';

/**
 * stream reads the event stream and calls onRevision(head) for each revision event. It
 * calls onOpen once the server accepted the stream, and resolves when the stream ends;
 * it rejects when it cannot be opened or breaks.
 */
async function stream(api, signal, onOpen, onRevision) {
  const res = await fetch(api.url('/events'), {
    headers: { Accept: 'text/event-stream', Authorization: 'Bearer ' + api.token },
    cache: 'no-store', credentials: 'omit', signal, redirect: 'error',
  });
  if (!res.ok || !res.body) {
    if (res.status === 401) api.onUnauthorized(new Error('unauthorized'));
    throw new Error(`event stream: ${res.status}`);
  }
  onOpen();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (event === 'revision') {
        let head = 0;
        try { head = JSON.parse(data).head; } catch { /* a malformed event still means "look again" */ }
        await onRevision(head);
      }
    }
  }
}

/**
 * live calls refresh at every new revision while the stream runs, and every interval ms
 * after it failed. onMode gets 'events' once the stream is open and 'polling' when the
 * view fell back; onError gets refresh's failures while polling.
 */
export function live(api, signal, interval, refresh, onMode, onError) {
  const fallBack = () => {
    if (signal.aborted) return;
    onMode('polling');
    poll(signal, interval, refresh, onError);
  };
  stream(api, signal, () => onMode('events'), async () => {
    try {
      await refresh();
    } catch (err) {
      if (!signal.aborted && onError) onError(err);
    }
  }).then(fallBack, (err) => {
    if (!(err && err.name === 'AbortError')) fallBack();
  });
}
