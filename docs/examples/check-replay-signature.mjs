// The signature, key id, seed commitment and version sequence of a replay, checked in
// JavaScript from docs/replay.md alone (Node 20+, no dependencies). Re-adjudicating the moves
// needs the games' rules: `referee verify` does the whole check.
//
// Usage: node check-replay-signature.mjs REPLAY.json KEYS.json   (KEYS: the JWK Set of /v1/keys)
// Exit status: 0 the checks pass, 1 one fails (printed as "REJECTED <code>: ...").

import { createHash, createPublicKey, verify } from "node:crypto";
import { readFileSync } from "node:fs";

// Canonical JSON (RFC 8785 for documents without floats): sorted keys, no whitespace;
// JSON.stringify escapes strings exactly as RFC 8785 does.
const canonical = (value) =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : value !== null && typeof value === "object"
      ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`
      : JSON.stringify(value);

const fail = (code, detail) => {
  console.log(`REJECTED ${code}: ${detail}`);
  process.exit(1);
};

// Reading the bytes (docs/replay.md): JSON.parse keeps the last of two members with one name
// and accepts lone surrogates and any number, so the bytes are first checked token by token
// for what readers could parse differently. JSON.parse has checked the syntax by then.
const strictParse = (bytes) => {
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    fail("ambiguous_json", "the document is not UTF-8");
  }
  if (text.startsWith("\uFEFF")) fail("ambiguous_json", "the document starts with a byte order mark");
  const value = JSON.parse(text);
  const open = []; // per open object the names seen so far, per open array null
  let expectName = false;
  for (const [token] of text.matchAll(/"(?:[^"\\]|\\.)*"|[{}[\],:]|[^\s{}[\],:"]+/g)) {
    if (token === "{" || token === "[") {
      open.push(token === "{" ? new Set() : null);
      expectName = token === "{";
    } else if (token === "}" || token === "]") open.pop();
    else if (token === "," || token === ":") expectName = token === "," && open.at(-1) instanceof Set;
    else if (token.startsWith('"')) {
      const string = JSON.parse(token);
      if (!string.isWellFormed()) fail("ambiguous_json", `string ${token} holds a lone surrogate`);
      if (!expectName) continue;
      if (open.at(-1).has(string)) fail("ambiguous_json", `member ${token} appears twice in one object`);
      if (/[\u{10000}-\u{10FFFF}]/u.test(string)) fail("ambiguous_json", `object key ${token} is beyond U+FFFF`);
      open.at(-1).add(string);
    } else if (/^[-\d]/.test(token) && !(/^-?(0|[1-9]\d*)$/.test(token) && Number.isSafeInteger(Number(token)))) {
      fail("ambiguous_json", `number ${token} is not an integer within ±(2**53 - 1)`);
    }
  }
  return value;
};

const [replayPath, keysPath] = process.argv.slice(2);
const replay = strictParse(readFileSync(replayPath));
const { keys } = JSON.parse(readFileSync(keysPath, "utf8"));
const { signature, ...unsigned } = replay;

if (signature?.algorithm !== "Ed25519") fail("unsigned", "no Ed25519 signature");
const jwk = keys.find((k) => k.kid === signature.key_id && k.kty === "OKP" && k.crv === "Ed25519");
if (!jwk) fail("unknown_key", `signed by ${signature.key_id}, not a trusted key`);
const thumbprint = createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${jwk.x}"}`).digest("base64url");
if (thumbprint !== jwk.kid) fail("unknown_key", "the key id is not the key's RFC 7638 thumbprint");

const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
const signed = Buffer.from(canonical(unsigned), "utf8");
if (!verify(null, signed, publicKey, Buffer.from(signature.value, "base64url"))) {
  fail("bad_signature", "the document was changed after signing");
}
if (createHash("sha256").update(Buffer.from(replay.seed, "hex")).digest("hex") !== replay.seed_sha256) {
  fail("seed_commitment", "sha256(seed) is not seed_sha256");
}
replay.actions.forEach((entry, i) => {
  if (entry.version !== i + 1) fail("version_sequence", `entry ${i + 1} claims version ${entry.version}`);
});
if (replay.version !== replay.actions.length) fail("version_sequence", "the final version is not the number of actions");
console.log(`SIGNED ${replay.game} match ${replay.match_id}: ${replay.actions.length} actions, key ${jwk.kid}`);
