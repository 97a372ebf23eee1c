// Durations as the CLI prints them: 45s, 3m12s, 2h5m, 4d3h.

export function short(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${pad(s % 60)}s`;
  const hrs = Math.floor(m / 60);
  if (hrs < 24) return `${hrs}h${pad(m % 60)}m`;
  return `${Math.floor(hrs / 24)}d${hrs % 24}h`;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

// since is the age of an RFC 3339 time, "" when absent.
export function since(t: string | undefined, now = Date.now()): string {
  return t ? short(now - Date.parse(t)) : "";
}

// clock is a time of day for tables and plot axes.
export function clock(t: string | number): string {
  return new Date(t).toLocaleTimeString(undefined, { hour12: false });
}
