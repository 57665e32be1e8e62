// The referee's HTTP API as the pages use it: a spectator, or one seat when a token is given.
// Every failure becomes a Problem carrying the server's problem+json (RFC 9457) so pages can
// show its title, detail and stable code instead of a bare status.

export class Problem extends Error {
  constructor(body, status) {
    super(body.detail || body.title || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || "unknown";
    this.title = body.title || `HTTP ${status}`;
    this.detail = body.detail || "";
    this.body = body;
  }

  /** One readable line: "Unprocessable Content: that card cannot go there (illegal_action)". */
  get text() {
    const detail = this.detail && this.detail !== this.title ? `: ${this.detail}` : "";
    return `${this.title}${detail} (${this.code})`;
  }
}

async function problemOf(response) {
  let body = {};
  try {
    body = await response.json();
  } catch {
    body = { title: response.statusText || `HTTP ${response.status}` };
  }
  return new Problem(body, response.status);
}

/** A failed connection (no answer at all) as a Problem, so callers handle one kind. */
function unreachable(error) {
  return new Problem({ title: "The referee did not answer", detail: String(error.message || error), code: "network" }, 0);
}

export async function request(url, { method = "GET", token = null, body, headers = {}, signal } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers }, signal, cache: "no-store" };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw unreachable(error);
  }
  if (!response.ok && response.status !== 304) throw await problemOf(response);
  return response;
}

/** One match seen by a spectator (token null) or by the seat whose token this is. */
export class MatchApi {
  constructor(matchId, token = null) {
    this.base = `/v1/matches/${encodeURIComponent(matchId)}`;
    this.token = token;
  }

  /** The match body, or null when `etag` is still current (304). */
  async match(etag = null, signal) {
    const headers = etag ? { "If-None-Match": etag } : {};
    const response = await request(this.base, { token: this.token, headers, signal });
    if (response.status === 304) return null;
    return { body: await response.json(), etag: response.headers.get("ETag") };
  }

  async legal() {
    return (await request(`${this.base}/legal-actions`, { token: this.token })).json();
  }

  /** Every history entry from `cursor` on, following the pages. */
  async history(cursor = 0) {
    const entries = [];
    for (let next = cursor; next !== null; ) {
      const page = await (await request(`${this.base}/history?cursor=${next}&limit=200`, { token: this.token })).json();
      entries.push(...page.entries);
      next = page.next_cursor;
    }
    return entries;
  }

  async act(stateToken, action) {
    const body = { state_token: stateToken, action };
    return (await request(`${this.base}/actions`, { method: "POST", token: this.token, body })).json();
  }

  /** The raw response of the event stream, resuming after `lastVersion` when given. */
  async stream(lastVersion, signal) {
    const headers = { Accept: "text/event-stream" };
    if (lastVersion !== null && lastVersion !== undefined) headers["Last-Event-ID"] = String(lastVersion);
    return request(`${this.base}/stream`, { token: this.token, headers, signal });
  }
}
