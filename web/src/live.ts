// Live changes from /api/events (Server-Sent Events): one stream per
// visible page, shared by whichever view is open. After a break (network, or the server
// dropped a browser that fell behind) the browser reconnects by itself and
// the views reload, since changes may have been missed meanwhile.

import type { Change } from "./api";

type Listener = { change(c: Change): void; resync(): void };

const listeners = new Set<Listener>();
let source: EventSource | null = null;
let broken = false;
let onState: (live: boolean, closed?: boolean) => void = () => {};

export function subscribe(l: Listener): () => void {
  listeners.add(l);
  start();
  return () => listeners.delete(l);
}

// watchState reports whether the stream is connected (the header shows
// it), and closed when the browser stopped reconnecting.
export function watchState(f: (live: boolean, closed?: boolean) => void): void {
  onState = f;
}

// restart reopens a stream the browser gave up on (an answer that was not
// a stream: 401 after the token expired, say), as after signing in again.
export function restart(): void {
  if (source?.readyState === EventSource.CLOSED) {
    source = null;
    if (listeners.size) start();
  }
}

// A hidden tab gives its stream up and takes a new one (reloading its
// view) when shown again: a browser opens at most six connections to one
// host, so six tabs each holding a stream would leave a seventh unable to
// load anything.
document.addEventListener("visibilitychange", () => {
  if (document.hidden) {
    if (source) {
      source.close();
      source = null;
      broken = true;
      onState(false);
    }
  } else if (listeners.size) {
    start();
  }
});

function start(): void {
  if (source || document.hidden) return;
  source = new EventSource("/api/events");
  source.addEventListener("open", () => {
    onState(true);
    if (broken) {
      broken = false;
      for (const l of listeners) l.resync();
    }
  });
  source.addEventListener("error", () => {
    broken = true;
    onState(false, source?.readyState === EventSource.CLOSED);
  });
  // Signed out, or the token expired: the server ended the stream.
  source.addEventListener("signedout", () => {
    source?.close();
    broken = true;
    onState(false, true);
  });
  source.addEventListener("dropped", () => {
    broken = true;
  });
  source.addEventListener("rollout", (ev) => {
    let c: Change;
    try {
      c = JSON.parse((ev as MessageEvent<string>).data) as Change;
    } catch {
      return;
    }
    for (const l of listeners) l.change(c);
  });
}
