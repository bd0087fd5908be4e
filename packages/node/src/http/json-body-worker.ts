// The thread of JsonBodyParser (json-body.ts): parses each text it is sent, answers the value (plain JSON
// values and bigints survive the structured clone back) or the parse error's message.
import { parentPort } from "node:worker_threads";
import { parseJson } from "@chainsim/protocol";

parentPort!.on("message", (text: string) => {
  try {
    parentPort!.postMessage({ value: parseJson(text) });
  } catch (error) {
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
