// The dashboard's JSON API (internal/dashboard) as the page uses it.

export interface Row {
  namespace: string;
  name: string;
  strategy: string;
  status: string;
  message?: string;
  step: string;
  setWeight: string;
  actualWeight: string;
  images?: string[];
  stepSince?: string;
  ready: string;
  desired: number;
}

export interface Status { name: string; icon: string }
export interface Pod { name: string; status: Status; ready: string; restarts: number; age?: string }
export interface ReplicaSet {
  name: string; hash: string; status: Status; markers?: string[]; delay?: string;
  ready: number; desired: number; age?: string; pods?: Pod[];
}
export interface RunSummary { name: string; status: Status; successful: number; failed: number; inconclusive: number; error: number; age?: string }
export interface Experiment { name: string; status: Status; templates?: string[]; age?: string }
export interface Revision { number: number; replicaSets?: ReplicaSet[]; analysisRuns?: RunSummary[]; experiments?: Experiment[] }
export interface RolloutView {
  name: string; namespace: string; strategy: string; status: Status; message?: string; step?: string;
  setWeight?: number; actualWeight?: number; images?: { image: string; markers?: string[] }[];
  replicas: { desired: number; current: number; updated: number; ready: number; available: number };
  age?: string; revisions?: Revision[]; analysisRuns?: RunSummary[]; experiments?: Experiment[];
}
export interface Measurement {
  phase: string; message?: string; startedAt?: string; finishedAt?: string; value?: string; metadata?: Record<string, string>;
}
export interface MetricResult { name: string; phase: string; message?: string; measurements?: Measurement[]; metadata?: Record<string, string> }
export interface AnalysisRun {
  name: string; phase: string; message?: string; startedAt?: string; completedAt?: string;
  metrics: { name: string; successCondition?: string; failureCondition?: string; interval?: string }[];
  metricResults?: MetricResult[];
}
export interface Timeline { steps: { text: string; pause?: string }[]; current: number; pauseEndsAt?: string }
// The planner's remaining points of the update (internal/view Forecast).
export interface ForecastPoint {
  index: number; kind: string; step: string; weight?: string; actual?: string;
  canary: number; stable: number; active?: string; gate?: string; current?: boolean;
}
export interface Forecast { basis: string; note?: string; points?: ForecastPoint[] }
export interface UndoTarget { revision: number; images?: string[]; text: string }
export interface Confirmations { actions: Record<string, string>; undo?: UndoTarget[] }
export interface Destination { weight: number; serviceName?: string; podTemplateHash?: string }
export interface Traffic {
  routers: { name: string; objects?: string[] }[]; maxWeight: number;
  weights?: { canary: Destination; stable: Destination; additional?: Destination[]; verified?: boolean };
  managedRoutes?: string[]; routes?: { name: string; kind: string; match: string }[];
}
export interface HPA {
  name: string; min: number; max: number; current: number; desired: number;
  metrics?: { name: string; current: string; target: string }[]; conditions?: string[];
}
export interface Detail {
  rollout: RolloutView;
  resourceVersion: string;
  timeline?: Timeline;
  forecast?: Forecast;
  confirm?: Confirmations;
  traffic?: Traffic;
  hpas?: HPA[];
  analysisRunDetails: AnalysisRun[];
  events: { type: string; reason: string; message: string; count?: number; lastSeen: string }[];
  withheld?: string[];
  refused?: Record<string, string>;
}
export interface Session { csrfToken: string; actionsEnabled: boolean; user: string; signedIn?: boolean }
export interface Change { namespace: string; name: string; deleted?: boolean; resourceVersion?: string; row?: Row }

// ApiError is a refused or failed request, with the server's message.
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

// unauthorized is the window event every 401 of the API fires (detail:
// the server's message): the page then offers to sign in.
export const unauthorized = "ramp:unauthorized";

async function answer<T>(res: Response, notify = true): Promise<T> {
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // not JSON: a proxy's page, or the connection broke
  }
  if (!res.ok) {
    const msg = (body as { error?: string } | null)?.error ?? `${res.status} ${res.statusText}`;
    if (res.status === 401 && notify) window.dispatchEvent(new CustomEvent(unauthorized, { detail: msg }));
    throw new ApiError(res.status, msg);
  }
  return body as T;
}

export async function get<T>(path: string): Promise<T> {
  return answer<T>(await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } }));
}

let session: Promise<Session> | null = null;

// getSession starts the session once (the cookie the CSRF token belongs to).
export function getSession(): Promise<Session> {
  session ??= get<Session>("/api/session");
  return session;
}

// forgetSession drops the cached session: after signing in or out.
export function forgetSession(): void {
  session = null;
}

async function post<T>(path: string, body: unknown, notify: boolean): Promise<T> {
  const res = await fetch(path, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
  return answer<T>(res, notify);
}

// signIn sends a pasted token once; the server keeps it behind a cookie.
export async function signIn(token: string): Promise<{ user: string }> {
  forgetSession();
  return post("/api/signin", { token }, false);
}

export async function signOut(): Promise<void> {
  forgetSession();
  await post("/api/signout", {}, false);
}

export interface ActionBody { resourceVersion: string; revision?: number; images?: string[] }

// act sends an action with the session's CSRF token and the version the
// person decided on.
export async function act(ns: string, name: string, verb: string, body: ActionBody): Promise<{ message: string }> {
  const { csrfToken } = await getSession();
  const res = await fetch(`/api/rollouts/${encodeURIComponent(ns)}/${encodeURIComponent(name)}/${verb}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken },
    body: JSON.stringify(body),
  });
  return answer(res);
}

// explain says what an error means for the person at the screen.
export function explain(e: unknown): string {
  if (!(e instanceof ApiError)) return `The dashboard server cannot be reached (${String(e)}).`;
  switch (e.status) {
    case 401: return `Not signed in: ${e.message}`;
    case 403: return `Not allowed: ${e.message}`;
    case 404: return `Not found: ${e.message}`;
    case 409: return `Conflict, nothing was changed: ${e.message}`;
    case 422: return `Not possible in the rollout's state: ${e.message}`;
  }
  return `Error ${e.status}: ${e.message}`;
}
