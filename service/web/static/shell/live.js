// Following a match live: the event stream (GET /v1/matches/{id}/stream) read with fetch(), so
// a seat's stream carries its Authorization header; each event is one version, its id the
// version number, and a reconnection sends Last-Event-ID so no version is missed. When the
// server has no stream (a 4xx) the follower polls GET match with If-None-Match instead; when the
// stream breaks (network, 5xx, silence) it polls once to catch up, then reconnects.

import { EventStreamParser } from "./sse.js";

const POLL_MS = 1000;
const SILENCE_MS = 45000; // three missed keep-alives (the server sends one every 15 s)
const MAX_BACKOFF_MS = 15000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Follower {
  /**
   * @param {import("./api.js").MatchApi} api
   * @param {{onUpdate: (body: object, source: string) => void, onState: (state: string) => void}} hooks
   *   onUpdate gets a GET-match body (source "poll") or a stream event's data (source "stream");
   *   onState gets "stream", "polling", "reconnecting" or "ended".
   */
  constructor(api, { onUpdate, onState }) {
    this.api = api;
    this.onUpdate = onUpdate;
    this.onState = onState;
    this.version = null;
    this.etag = null;
    this.ended = false;
    this.stopped = false;
    this.resuming = false;
  }

  /** Start after the page's first GET match (its version and ETag). */
  start(version, etag, ended) {
    this.version = version;
    this.etag = etag;
    this.ended = ended;
    if (ended) this.onState("ended");
    else this.run();
  }

  stop() {
    this.stopped = true;
    this.controller?.abort();
  }

  seen(version, ended) {
    if (this.version === null || version > this.version) this.version = version;
    if (ended) this.ended = true;
  }

  async run() {
    let backoff = 500;
    while (!this.stopped && !this.ended) {
      const outcome = await this.readStream();
      if (this.ended || this.stopped) break;
      if (outcome === "unavailable") {
        await this.pollUntilEnded();
        break;
      }
      if (outcome === "received") backoff = 500;
      this.onState("reconnecting");
      await this.pollOnce();
      await sleep(backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
    if (this.ended) this.onState("ended");
  }

  /** One connection: "unavailable" (4xx), "received" (got events, then it broke) or "failed". */
  async readStream() {
    this.controller = new AbortController();
    let response;
    try {
      // The first connection asks for the current version (a full snapshot, drawn at once);
      // reconnections resume after the last version seen, so none is missed.
      response = await this.api.stream(this.resuming ? this.version : null, this.controller.signal);
    } catch (problem) {
      return problem.status >= 400 && problem.status < 500 ? "unavailable" : "failed";
    }
    if (response.status === 204) {
      this.ended = true;
      return "received";
    }
    if (!response.body || !(response.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
      return "unavailable";
    }
    this.onState("stream");
    let received = false;
    const parser = new EventStreamParser(({ id, event, data }) => {
      if (event !== "version") return;
      const body = JSON.parse(data);
      received = true;
      this.resuming = true;
      this.seen(Number(id ?? body.version), body.status !== "active");
      this.onUpdate(body, "stream");
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let watchdog;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => this.controller.abort(), SILENCE_MS);
    };
    try {
      for (arm(); ; arm()) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(value);
      }
    } catch {
      // aborted by the watchdog or the network: reconnect below
    } finally {
      clearTimeout(watchdog);
    }
    return received ? "received" : "failed";
  }

  async pollOnce() {
    try {
      const answer = await this.api.match(this.etag);
      if (answer) {
        this.etag = answer.etag;
        this.seen(answer.body.version, answer.body.status !== "active");
        this.onUpdate(answer.body, "poll");
      }
    } catch {
      // the next poll or connection tries again
    }
  }

  async pollUntilEnded() {
    this.onState("polling");
    while (!this.stopped && !this.ended) {
      await this.pollOnce();
      if (!this.ended) await sleep(POLL_MS);
    }
  }
}
