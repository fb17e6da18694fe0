// A Node.js bot written from docs/protocol.md alone, with the npm packages
// zeromq (a DEALER) and @msgpack/msgpack: the sandbox_runtimes test plays it
// confined in every game. It says hello with $JACKARENA_TOKEN, answers each
// act with a legal index drawn from a stream of its own per match, pongs,
// and exits on bye. A hello refused for good (an error before the welcome)
// ends it with status 3.
"use strict";
const zmq = require("zeromq");
const { encode, decode } = require("@msgpack/msgpack");

async function main() {
  const env = process.env;
  const sock = new zmq.Dealer();
  if (env.JACKARENA_SERVER_KEY) {
    const keys = zmq.curveKeyPair();
    sock.curveServerKey = env.JACKARENA_SERVER_KEY;
    sock.curvePublicKey = keys.publicKey;
    sock.curveSecretKey = keys.secretKey;
  }
  sock.connect(env.JACKARENA_ENDPOINT);
  const hello = { type: "hello", protocol: 1, name: env.JACKARENA_NAME || "nodebot",
                  version: "1.0" }; // no "games": every game
  if (env.JACKARENA_TOKEN) hello.token = env.JACKARENA_TOKEN;
  await sock.send(encode(hello));
  const streams = new Map(); // match -> state of its xorshift32 stream
  let welcomed = false;
  for await (const [frame] of sock) {
    const m = decode(frame, { useBigInt64: true });
    if (m.type === "welcome") {
      welcomed = true;
    } else if (m.type === "error" && !welcomed) {
      process.stderr.write(`nodebot: hello refused: ${m.code}: ${m.message}\n`);
      process.exit(3);
    } else if (m.type === "start") {
      streams.set(m.match, (Number(BigInt.asUintN(32, BigInt(m.seed))) | 1) >>> 0);
    } else if (m.type === "act") {
      let x = streams.get(m.match) || 1;
      x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
      streams.set(m.match, x);
      await sock.send(encode({ type: "action", match: m.match, turn: m.turn,
                               index: x % m.legal.length }));
    } else if (m.type === "end") {
      streams.delete(m.match);
    } else if (m.type === "ping") {
      await sock.send(encode({ type: "pong" }));
    } else if (m.type === "bye") {
      break;
    }
  }
  sock.linger = 0;
  sock.close();
}

main().catch((e) => {
  process.stderr.write(`nodebot: ${e.stack || e}\n`);
  process.exit(1);
});
