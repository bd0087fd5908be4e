import type { ExecutionOutcome, ExecutionRequest, JsRuntime } from "./js/js-runtime.js";
import type { ContractLanguage, ContractRuntime } from "./runtime.js";
import type { WasmRuntime } from "./wasm/wasm-runtime.js";

/** Every contract language behind one ContractRuntime: each request goes to the engine of its language. */
export class ContractEngines implements ContractRuntime {
  constructor(
    private readonly javascript: JsRuntime,
    private readonly wasm: WasmRuntime,
  ) {}

  validate(code: string, language: ContractLanguage): Promise<void> {
    return this.engine(language).validate(code, language);
  }

  execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    return this.engine(request.language).execute(request);
  }

  dispose(): void {
    this.javascript.dispose();
    this.wasm.dispose();
  }

  private engine(language: ContractLanguage): ContractRuntime {
    return language === "wasm" ? this.wasm : this.javascript;
  }
}
