import { Worker } from "node:worker_threads";
import { ChainError, ErrorCode, parseJson, type Json } from "@chainsim/protocol";
import { WorkQueue } from "../work-queue.js";

/**
 * Bodies longer than this (in UTF-16 units) are parsed in a worker thread: the lossless parser takes about
 * 70 ms a MiB, and a 15 MiB body held the event loop, and with it consensus, for 4.3 s (docs/api.md,
 * "Request bodies").
 */
export const OFF_THREAD_CHARS = 1 << 20;
/** Large bodies parsed one at a time; past this many waiting, 114. */
const LARGE_BODIES_WAITING = 4;
/** The parsing thread's heap; a body whose parse needs more answers 2 and the thread is replaced. */
const PARSER_HEAP_MB = 1024;

type Answer = { value: Json } | { error: string };

/** Parses request bodies as parseJson does, large ones in one worker thread so the event loop stays free. */
export class JsonBodyParser {
  private worker?: Worker;
  private readonly queue = new WorkQueue(1, LARGE_BODIES_WAITING, "large request bodies");

  constructor(private readonly heapMb = PARSER_HEAP_MB) {}

  async parse(text: string): Promise<Json> {
    if (text.length <= OFF_THREAD_CHARS) return parseJson(text);
    const answer = await this.queue.run(() => this.parseOffThread(text));
    if ("error" in answer) throw new SyntaxError(answer.error);
    return answer.value;
  }

  close(): Promise<number> | undefined {
    const worker = this.worker;
    this.worker = undefined;
    return worker?.terminate();
  }

  private parseOffThread(text: string): Promise<Answer> {
    const worker = (this.worker ??= this.startWorker());
    return new Promise((resolve, reject) => {
      const settle = (settled: () => void) => {
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        settled();
      };
      const onMessage = (answer: Answer) => settle(() => resolve(answer));
      const failed = (why: string) => {
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
        settle(() => reject(new ChainError(ErrorCode.INVALID_PARAMETER, `the request body could not be parsed: ${why}`)));
      };
      const onError = (error: Error) => failed(error.message);
      const onExit = (code: number) => failed(`the parser stopped (exit ${code})`);
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
      worker.postMessage(text);
    });
  }

  private startWorker(): Worker {
    const worker = new Worker(new URL("./json-body-worker.js", import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: this.heapMb } });
    worker.unref(); // an idle parser never keeps the process alive
    // A thread that ends, for whatever reason, is replaced by the next large body.
    worker.once("exit", () => {
      if (this.worker === worker) this.worker = undefined;
    });
    return worker;
  }
}
