// The hash router's addresses: #/ is the list, #/rollouts/NS/NAME a
// rollout's page.

export interface RolloutRoute { ns: string; name: string }

// rolloutRoute is the rollout an address names, null for the list: any
// other address, or one whose parts do not decode (a hand-typed "%" would
// otherwise throw and leave the page blank).
export function rolloutRoute(hash: string): RolloutRoute | null {
  const m = /^#\/rollouts\/([^/]+)\/([^/]+)$/.exec(hash);
  if (!m) return null;
  try {
    return { ns: decodeURIComponent(m[1]!), name: decodeURIComponent(m[2]!) };
  } catch {
    return null;
  }
}
