// The signature, key id, seed commitment and version sequence of a replay, checked in
// JavaScript from docs/replay.md alone (Node 18+, no dependencies). Re-adjudicating the moves
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

const [replayPath, keysPath] = process.argv.slice(2);
const replay = JSON.parse(readFileSync(replayPath, "utf8"));
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
